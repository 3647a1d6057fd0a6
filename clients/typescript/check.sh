#!/usr/bin/env bash
# Type-checks the TypeScript client against the committed openapi.yaml, from a fresh clone:
# installs the pinned packages (package-lock.json, npm's registry or its cache only), generates
# the types with openapi-typescript, and compiles play.ts with `tsc --strict` into dist/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --prefer-offline --loglevel=error
fi
npx --no-install openapi-typescript ../../openapi.yaml --output generated/basra.d.ts --silent
npx --no-install tsc -p tsconfig.json
