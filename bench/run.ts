/** `npm run bench`: every benchmark, each printing ratios against a baseline measured in the same run. */
import { run as geometry } from "./geometry.ts"

geometry()
