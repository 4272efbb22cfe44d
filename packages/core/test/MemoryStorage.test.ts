import { MemoryStorage } from "../src/index.ts"
import { suite } from "../src/testing/index.ts"

suite("in-memory reference store", MemoryStorage.layer)
