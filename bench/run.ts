/** `npm run bench`: every benchmark, each printing ratios against a baseline measured in the same run. */
import { run as geometry } from "./geometry.ts"
import { run as http } from "./http.ts"
import { run as webhooks } from "./webhooks.ts"

const only = process.argv[2]
if (!only || only === "geometry") geometry()
if (!only || only === "http") await http()
if (!only || only === "webhooks") await webhooks()
if (only === "httpapi") await (await import("./httpapi.ts")).run() // the HTTP stack comparison: only when asked for
if (only === "scale") await (await import("./scale.ts")).run() // heavy: only when asked for
if (only === "writes") await (await import("./writes.ts")).run() // minutes: only when asked for
if (only === "soak") await (await import("./soak.ts")).run() // minutes: only when asked for
if (only === "boundary-storage") await (await import("./boundaryStorage.ts")).run() // a minute, PostgreSQL: only when asked for
if (only === "boundaries-last") await (await import("./boundariesLast.ts")).run() // a minute, SQLite: only when asked for
if (only === "estate") await (await import("./estate.ts")).run() // a minute: only when asked for
if (only === "search-index") await (await import("./searchIndex.ts")).run() // a few minutes, PostgreSQL: only when asked for
if (only === "map") await (await import("./map.ts")).run() // a minute or more, with Chromium: only when asked for
