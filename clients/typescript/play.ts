// Plays one game of Basra against the greedy bot through the typed client that
// openapi-typescript generates from openapi.yaml. `tsc --strict` checks it against that
// document in `make test`: a change to the API that breaks this program breaks the build.
//
//   npm ci && npm run build && node dist/play.js http://127.0.0.1:8000
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/basra.js";

type Card = components["schemas"]["Card"];
type View = components["schemas"]["View"];
type ProblemCode = components["schemas"]["ProblemCode"];

const baseUrl = process.argv[2] ?? "http://127.0.0.1:8000";
const basra = createClient<paths>({ baseUrl });

// Problem codes are typed: a code the API does not have does not compile, and each answer
// narrows them (a 409 to a move can only be one of these three).
type MoveConflict = NonNullable<
  paths["/games/{game_id}/moves"]["post"]["responses"][409]["content"]["application/problem+json"]["code"]
>;
const RETRY: readonly MoveConflict[] = ["conflict"];

function explain(code: ProblemCode): string {
  switch (code) {
    case "not_your_turn":
      return "wait for your turn";
    case "card_not_in_hand":
      return "play a card of your hand";
    case "game_not_active":
      return "the game is over";
    default:
      return code;
  }
}

// The card to play: the one that takes the most floor cards, a basra first.
function choose(view: View): Card {
  const moves = view.legal_moves ?? [];
  const best = [...moves].sort(
    (a, b) => Number(b.basra !== null) - Number(a.basra !== null) || b.captured.length - a.captured.length,
  )[0];
  if (best === undefined) throw new Error("it is our turn, yet no legal move");
  return best.card;
}

async function main(): Promise<void> {
  const created = await basra.POST("/games", {
    body: { players: [{ name: "Amira", seed: "typescript" }, { bot: "greedy" }], rules: { target_score: 31 } },
  });
  if (created.error) throw new Error(`cannot create a game: ${created.error.code}: ${created.error.detail}`);
  const game = created.data;
  const token = game.seats[0]?.token;
  if (token === undefined) throw new Error("a human seat gets a token");
  const auth = { Authorization: `Bearer ${token}` };

  let view: View = game.state;
  let moves = 0;
  while (view.status === "active") {
    const played = await basra.POST("/games/{game_id}/moves", {
      params: { path: { game_id: game.id }, header: { "Idempotency-Key": `move-${moves}` } },
      headers: auth,
      body: { card: choose(view) },
    });
    if (played.error) {
      if ((RETRY as readonly string[]).includes(played.error.code)) continue; // same key: safe
      throw new Error(`move refused: ${played.error.code}: ${explain(played.error.code)}`);
    }
    moves += played.data.moves.length;
    view = played.data.state;
  }

  const verdict = await basra.GET("/games/{game_id}/verify", { params: { path: { game_id: game.id } } });
  if (verdict.error) throw new Error(verdict.error.detail);
  const scores = view.sides.map((side) => side.score);
  console.log(JSON.stringify({ game: game.id, status: view.status, moves, winner: view.winner, scores, verified: verdict.data.ok }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
