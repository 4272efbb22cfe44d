/**
 * The project lifecycle as a pure state machine: (state, command) → the next state and the one
 * event to emit, or a refusal with its reason (the API answers 409 CONFLICT).
 *
 * create → active (or draft); archive from active or draft; restore from archived → active;
 * delete only from archived; an update may set any status and emits project.updated.
 */
import { Data, Result } from "effect"

/** All project statuses (spec): the one list the schemas, the stores and the pages read. */
export const statuses = ["active", "archived", "draft"] as const
/** Project status (spec). */
export type Status = (typeof statuses)[number]

/**
 * The status whose projects do not count: an archived project holds no hectares against the
 * plan, in the account's totals or the map's zoom grid, and meets no other project's boundary
 * (overlaps). The stores' SQL (queries and triggers) writes the same rule with this value.
 */
export const UNCOUNTED: Status = "archived"

/** Whether a project of this status counts (see `UNCOUNTED`). */
export const counts = (status: string): boolean => status !== UNCOUNTED

/** What a caller asks of a project. */
export type Command =
  | { readonly _tag: "Create"; readonly status?: "active" | "draft" | undefined }
  | { readonly _tag: "Update"; readonly status?: Status | undefined }
  | { readonly _tag: "Archive" }
  | { readonly _tag: "Restore" }
  | { readonly _tag: "Delete" }

/** `null` before creation and after deletion. */
export type State = Status | null

/** An accepted command: the next state and the event it emits. */
export interface Transition {
  readonly state: State
  readonly event: "project.created" | "project.updated" | "project.archived" | "project.restored" | "project.deleted"
}

/** A refused command, with a reason fit for an error message. */
export class Refused extends Data.TaggedError("Refused")<{ readonly reason: string }> {}

/** Applies a command to a state. */
export const transition = (state: State, command: Command): Result.Result<Transition, Refused> => {
  if (command._tag === "Create") {
    return state === null
      ? Result.succeed({ state: command.status ?? "active", event: "project.created" })
      : Result.fail(new Refused({ reason: "the project already exists" }))
  }
  if (state === null) return Result.fail(new Refused({ reason: "the project does not exist" }))
  switch (command._tag) {
    case "Update":
      return Result.succeed({ state: command.status ?? state, event: "project.updated" })
    case "Archive":
      return state === "archived"
        ? Result.fail(new Refused({ reason: "the project is already archived" }))
        : Result.succeed({ state: "archived", event: "project.archived" })
    case "Restore":
      return state === "archived"
        ? Result.succeed({ state: "active", event: "project.restored" })
        : Result.fail(new Refused({ reason: `only an archived project can be restored; this one is ${state}` }))
    case "Delete":
      return state === "archived"
        ? Result.succeed({ state: null, event: "project.deleted" })
        : Result.fail(new Refused({ reason: `only an archived project can be deleted; archive it first (it is ${state})` }))
  }
}
