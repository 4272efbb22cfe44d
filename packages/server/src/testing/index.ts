/**
 * Canopy's test kit (`@canopy/server/testing`): a real server over a real socket (in this process
 * or as `canopy serve`), a small HTTP client and the spec's error-body check, a loopback webhook
 * receiver, and test boundaries. The package's own tests, the examples and the clients' tests use it by name;
 * the headless-browser steps are `@canopy/server/testing/browser`.
 */
export * from "./polygons.ts"
export * from "./receiver.ts"
export * from "./server.ts"
