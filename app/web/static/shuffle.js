// @ts-check
// basra-shuffle-v1 (FAIRNESS.md) with WebCrypto, so anyone can re-derive a finished game's decks
// in the browser. DOM-free on purpose: tests/browser/test_shuffle_js.py runs it under node.

export const ALGORITHM = "basra-shuffle-v1";
export const SUITS = ["S", "H", "D", "C"];
export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

export function canonicalDeck() {
  return SUITS.flatMap((suit) => RANKS.map((rank) => rank + suit));
}

/**
 * @param {unknown} hex
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function hexToBytes(hex) {
  if (typeof hex !== "string" || hex.length % 2 !== 0 || /[^0-9a-fA-F]/.test(hex)) {
    throw new Error("not a hex string");
  }
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** @param {ArrayBuffer | ArrayLike<number>} bytes */
export function bytesToHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

function subtleCrypto() {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  // WebCrypto exists only in secure contexts (https, or http on localhost / 127.0.0.1).
  if (!subtle) throw new Error("WebCrypto is unavailable here (it needs https or localhost)");
  return subtle;
}

/** @param {Uint8Array<ArrayBuffer>} bytes */
export async function sha256Hex(bytes) {
  return bytesToHex(await subtleCrypto().digest("SHA-256", bytes));
}

// The random stream of one round: HMAC blocks read as unsigned 32-bit big-endian integers.
class Stream {
  /**
   * @param {CryptoKey} key
   * @param {string} clientSeed
   * @param {number} round
   */
  constructor(key, clientSeed, round) {
    this.key = key;
    this.prefix = `${ALGORITHM}|${clientSeed}|${round}|`;
    this.k = 0;
    /** @type {number[]} */
    this.words = [];
  }

  /** @returns {Promise<number>} */
  async next() {
    if (this.words.length === 0) {
      const msg = new TextEncoder().encode(this.prefix + String(this.k));
      this.k += 1;
      const block = new DataView(await subtleCrypto().sign("HMAC", this.key, msg));
      for (let off = 0; off < block.byteLength; off += 4) this.words.push(block.getUint32(off, false));
    }
    const word = this.words.shift();
    if (word === undefined) throw new Error("an HMAC block gives eight words");
    return word;
  }

  // Rejection sampling keeps every residue equally likely.
  /** @param {number} n */
  async uniform(n) {
    const limit = 2 ** 32 - (2 ** 32 % n);
    for (;;) {
      const u = await this.next();
      if (u < limit) return u % n;
    }
  }
}

/**
 * @param {string | Uint8Array<ArrayBuffer>} serverSeed hex, or its bytes
 * @param {string | null | undefined} clientSeed
 * @param {number} round
 * @returns {Promise<string[]>}
 */
export async function deriveDeck(serverSeed, clientSeed, round) {
  const seedBytes = typeof serverSeed === "string" ? hexToBytes(serverSeed) : serverSeed;
  const key = await subtleCrypto().importKey(
    "raw", seedBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"],
  );
  const stream = new Stream(key, clientSeed ?? "", round);
  const deck = canonicalDeck();
  for (let i = deck.length - 1; i >= 1; i -= 1) {
    const j = await stream.uniform(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}
