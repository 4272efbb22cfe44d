/** Vitest global setup: finds (or unpacks) the browser once per run, before any page test starts. */
import type { TestProject } from "vitest/node"
import { resolveChromium } from "../src/testing/chromium.ts"

export default async function setup(project: TestProject) {
  project.provide("chromiumPath", await resolveChromium())
}
