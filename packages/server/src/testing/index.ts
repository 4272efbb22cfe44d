/**
 * Canopy's test kit (`@canopy/server/testing`): a real server over a real socket (in this process
 * or as `canopy serve`), a small HTTP client and the spec's error-body check, and a loopback
 * webhook receiver. The package's own tests, the examples and the clients' tests use it by name;
 * the headless-browser steps are `@canopy/server/testing/browser`.
 */
export * from "./receiver.ts"
export * from "./server.ts"
