/** Two `canopy serve` processes connected straight to one PostgreSQL (`multiInstanceCases.ts`). */
import { multiInstanceSuite } from "./multiInstanceCases.ts"

multiInstanceSuite("two server instances on one PostgreSQL", async () => ({ serveUrl: (url) => url }))
