/**
 * Operator settings the domain reads: plan limits, invitation lifetime, delivery timing, event
 * retention, and whether webhooks may target plain-HTTP or local addresses (development only). Defaults apply unless a layer provides
 * other values.
 */
import { Context } from "effect"
import * as Delivery from "./Delivery.ts"
import * as Plans from "./Plans.ts"

/** The settings. */
export interface SettingsShape {
  readonly plans: Readonly<Record<Plans.Plan, Plans.Limits>>
  /** Allow `http://` webhook URLs and loopback/private addresses (development and tests). */
  readonly allowInsecureWebhooks: boolean
  readonly invitationTtlMs: number
  /** Skip rewriting `last_used_at` when it is more recent than this (ms): saves a write per request. */
  readonly lastUsedResolutionMs: number
  /** How long a webhook receiver has to answer (ms); default `Delivery.TIMEOUT_MS` (the spec's 5 s). */
  readonly deliveryTimeoutMs: number
  /** How long a dispatcher holds a claimed delivery (ms): well above the timeout. */
  readonly deliveryLeaseMs: number
  /** How long settled events are kept (ms); default `Delivery.EVENT_RETENTION_MS` (30 days). */
  readonly eventRetentionMs: number
  /** How long delivery log entries are kept (ms); default `Delivery.LOG_RETENTION_MS` (30 days). */
  readonly deliveryLogRetentionMs: number
}

/** The defaults. */
export const defaults: SettingsShape = {
  plans: Plans.defaults,
  allowInsecureWebhooks: false,
  invitationTtlMs: 7 * 86_400_000,
  lastUsedResolutionMs: 60_000,
  deliveryTimeoutMs: Delivery.TIMEOUT_MS,
  deliveryLeaseMs: 30_000,
  eventRetentionMs: Delivery.EVENT_RETENTION_MS,
  deliveryLogRetentionMs: Delivery.LOG_RETENTION_MS
}

/** The settings service; a reference with the defaults, so providing it is optional. */
export const Settings = Context.Reference<SettingsShape>("canopy/Settings", { defaultValue: () => defaults })
