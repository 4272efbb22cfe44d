/** A loopback port free at the time of asking (the OS picks it; the listener is closed at once). */
import { createServer } from "node:net"

/** Resolves with a port on 127.0.0.1 that nothing listened on a moment ago. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer()
    s.once("error", reject)
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
