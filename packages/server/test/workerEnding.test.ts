/**
 * No worker starts while another is being terminated (nodejs/node#56312: a worker starting while
 * another one is terminated can crash the process). The pools ask `mayStartWorker` before they
 * start one and terminate with `endWorker`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Worker } from "node:worker_threads"
import { endWorker, mayStartWorker } from "../src/workerPool.ts"

/** A worker that says it is ready, then spins until it is terminated. */
const spinning = async () => {
  const worker = new Worker(
    `const { parentPort } = require("node:worker_threads"); parentPort.postMessage("ready"); for (;;) {}`,
    { eval: true }
  )
  await new Promise((resolve) => worker.once("message", resolve))
  return worker
}

describe("workers are not started while one is being terminated", () => {
  it("mayStartWorker answers false until every termination has ended, then runs each waiting pump once", async () => {
    assert.isTrue(mayStartWorker(() => assert.fail("nothing was ending")))
    const [a, b] = await Promise.all([spinning(), spinning()])
    const exited: Array<string> = []
    a.once("exit", () => exited.push("a"))
    b.once("exit", () => exited.push("b"))
    const calls: Array<string> = []
    const pump = () => calls.push(`pump after ${exited.join("+")}`)
    const endingA = endWorker(a), endingB = endWorker(b)
    assert.isFalse(mayStartWorker(pump))
    assert.isFalse(mayStartWorker(pump), "asked twice, the pump is still run once")
    await endingA
    await endingB
    assert.deepStrictEqual([...exited].sort(), ["a", "b"])
    assert.deepStrictEqual(calls.length, 1)
    assert.match(calls[0]!, /^pump after (a\+b|b\+a)$/, "the pump ran once both had exited")
    assert.isTrue(mayStartWorker(() => assert.fail("nothing is ending any more")))
  })

  it("a worker that has already exited ends at once and holds nothing back", async () => {
    const worker = new Worker(`process.exit(0)`, { eval: true })
    await new Promise((resolve) => worker.once("exit", resolve))
    await endWorker(worker)
    assert.isTrue(mayStartWorker(() => assert.fail("nothing is ending")))
  })
})
