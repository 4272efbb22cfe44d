import { startApp } from "./app.ts"

const app = await startApp({
  port: Number(process.env.PORT ?? 3000),
  db: process.env.CANOPY_DB ?? "embedded.db",
  // development and tests only: webhooks to http:// and local addresses
  allowInsecureWebhooks: process.env.CANOPY_ALLOW_INSECURE_WEBHOOKS === "1"
})
console.log(`host app on ${app.url}; Canopy's API at ${app.url}/canopy/v1`)

const stop = (signal: string) => {
  console.log(`${signal}: shutting down`)
  app.close().then(() => process.exit(0), (e: unknown) => {
    console.error(e)
    process.exit(1)
  })
}
process.once("SIGTERM", () => stop("SIGTERM"))
process.once("SIGINT", () => stop("SIGINT"))
