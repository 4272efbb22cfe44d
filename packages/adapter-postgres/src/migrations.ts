/** The schema: `@canopy/core`'s SQL migrations, one set for every dialect. */
import { SqlMigrations } from "@canopy/core"

export const { migrations, run } = SqlMigrations
