/**
 * `/health` asked every 10 ms from a thread of its own, so the test's own sending never delays a
 * probe: a server loop held by a request shows as slow answers. `startHealthProbe(url)` resolves
 * once probing has begun; the function it answers stops it and gives every probe's latency (ms;
 * `Infinity` for a probe that failed), including the answers that came within `settleMs` after.
 */
import { once } from "node:events"
import { Worker } from "node:worker_threads"

const probeSource = `
const { parentPort, workerData } = require("node:worker_threads")
const latencies = []
const timer = setInterval(() => {
  const issued = performance.now()
  fetch(workerData.url).then((r) => r.text()).then(() => latencies.push(performance.now() - issued), () => latencies.push(Infinity))
}, 10)
parentPort.once("message", () => {
  clearInterval(timer)
  setTimeout(() => parentPort.postMessage(latencies), workerData.settleMs)
})
parentPort.postMessage("started")
`

/** Starts probing `${baseUrl}/health`; answers how to stop it and read the latencies. */
export const startHealthProbe = async (baseUrl: string, settleMs = 500): Promise<() => Promise<Array<number>>> => {
  const worker = new Worker(probeSource, { eval: true, workerData: { url: `${baseUrl}/health`, settleMs } })
  await once(worker, "message")
  return async () => {
    worker.postMessage("stop")
    const [latencies] = (await once(worker, "message")) as [Array<number>]
    await worker.terminate()
    return latencies
  }
}
