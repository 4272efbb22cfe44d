/**
 * What the server's worker-thread pools share: the geometry pool (geometry/pool.ts) and the GIS
 * import and export workers (gis/offload.ts, gis/exportOffload.ts).
 *
 * - `workerModule`: where a worker's module is, and the flags it starts with.
 * - `makeWorkerSlots`: a pool's workers, each with the job it runs and that job's timer; which are
 *   idle, which still starting, and which hold the process open.
 * - `makeShares` and `queueOwned`: jobs running or waiting per owner (an account), for a
 *   per-account share, and a job queued under it.
 * - `processWide`: the process's one pool of a kind, started on first use and replaceable.
 * - `endWorker` and `mayStartWorker`: no worker starts while another is being terminated.
 */
import { Effect } from "effect"
import type { Worker } from "node:worker_threads"

/**
 * The URL of the worker module `name` beside the module at `base` (its `import.meta.url`), and the
 * flags the worker starts with. From the TypeScript sources (Node strips types), the worker needs
 * the `source` condition to resolve @canopy/core to its sources too; a built package runs the `.js`
 * as is. The process's own flags are not passed on: heap sizes and other per-process V8 flags make
 * a Worker refuse to start.
 */
export const workerModule = (base: string, name: string): { readonly url: URL; readonly execArgv: Array<string> } => {
  const fromSources = base.endsWith(".ts")
  return {
    url: new URL(fromSources ? `./${name}.ts` : `./${name}.js`, base),
    execArgv: fromSources ? ["--conditions=source", "--disable-warning=ExperimentalWarning"] : []
  }
}

/** A worker of a pool: whether it said it is ready, the job it runs, and the timer of that job's budget. */
export interface WorkerSlot<J> {
  readonly worker: Worker
  ready: boolean
  job: J | undefined
  timer: ReturnType<typeof setTimeout> | undefined
}

/** A pool's workers (slots), oldest first. */
export const makeWorkerSlots = <S extends WorkerSlot<unknown>>() => {
  const slots: Array<S> = []
  return {
    /** Adds a started worker. */
    add: (slot: S): void => void slots.push(slot),
    /** Whether the slot is still the pool's (false once removed: the pool ended it itself). */
    has: (slot: S): boolean => slots.includes(slot),
    /** Takes the slot out of the pool and clears its job's timer (the worker is not terminated). */
    remove: (slot: S): void => {
      const i = slots.indexOf(slot)
      if (i >= 0) slots.splice(i, 1)
      if (slot.timer) clearTimeout(slot.timer)
      slot.timer = undefined
    },
    /** A ready worker without a job, if any. */
    idle: (): S | undefined => slots.find((s) => s.ready && !s.job),
    /** Workers, ready or starting. */
    count: (): number => slots.length,
    /** Workers still starting. */
    starting: (): number => slots.filter((s) => !s.ready).length,
    /** Workers running a job. */
    running: (): number => slots.filter((s) => s.job).length,
    /**
     * Workers hold the process open only while they have work: a job, or, while starting, any of
     * the `waiting` jobs to take.
     */
    reference: (waiting: number): void => {
      for (const s of slots) {
        if (s.job || (!s.ready && waiting > 0)) s.worker.ref()
        else s.worker.unref()
      }
    },
    /** Takes every slot out of the pool (to close it) and returns them. */
    takeAll: (): Array<S> => slots.splice(0)
  }
}

/** Workers of this process being terminated, and the pumps to run again once none is. */
let ending = 0
const afterEnding = new Set<() => void>()
/** How long a termination may hold the start of other workers back. */
const ENDING_HOLD_MS = 5_000

/**
 * Terminates `worker`. Until it has ended, no pool of this process starts a worker: Node can crash
 * (SIGSEGV) when a worker starts while another is being terminated (nodejs/node#56312). A
 * termination that takes longer than 5 s stops holding them back.
 */
export const endWorker = (worker: Worker): Promise<void> => {
  ending++
  let counted = true
  const ended = () => {
    if (!counted) return
    counted = false
    if (--ending > 0) return
    const pumps = [...afterEnding]
    afterEnding.clear()
    for (const pump of pumps) pump()
  }
  const hold = setTimeout(ended, ENDING_HOLD_MS)
  hold.unref()
  return worker.terminate().then(() => undefined, () => undefined).finally(() => {
    clearTimeout(hold)
    ended()
  })
}

/** Whether a worker may start now (none is being terminated); if not, `retry` runs once none is. */
export const mayStartWorker = (retry: () => void): boolean => {
  if (ending === 0) return true
  afterEnding.add(retry)
  return false
}

/** Ends the workers of `slots` (taken out of their pool) one after another, their job timers cleared. */
export const terminateInTurn = async (slots: ReadonlyArray<Pick<WorkerSlot<unknown>, "worker" | "timer">>): Promise<void> => {
  for (const s of slots) {
    if (s.timer) clearTimeout(s.timer)
    await endWorker(s.worker)
  }
}

/** Jobs running or waiting per owner (an account id), for a share of the pool per owner. */
export const makeShares = () => {
  const held = new Map<string, number>()
  return {
    /** The owner's jobs running or waiting. */
    of: (owner: string): number => held.get(owner) ?? 0,
    /** One more job of the owner. */
    take: (owner: string): void => void held.set(owner, (held.get(owner) ?? 0) + 1),
    /** One job of the owner fewer (ended, or left the queue). */
    release: (owner: string): void => {
      const n = (held.get(owner) ?? 1) - 1
      if (n > 0) held.set(owner, n)
      else held.delete(owner)
    }
  }
}

/** Jobs running or waiting per owner (`makeShares`). */
export type Shares = ReturnType<typeof makeShares>

/**
 * Queues the job `make` builds (given the callback that answers it) and runs `pump`. The job counts
 * in the owner's share from now until it is answered or leaves the queue (its caller interrupted
 * while it waits; a running job finishes or hits its budget); the first answer resumes the caller
 * with `settle` of it, later ones are ignored.
 */
export const queueOwned = <P, R, A, E>(
  queue: Array<P>,
  shares: Shares,
  owner: string,
  make: (done: (r: R) => void) => P,
  settle: (r: R) => Effect.Effect<A, E>,
  pump: () => void
): Effect.Effect<A, E> =>
  Effect.callback<A, E>((resume) => {
    shares.take(owner)
    let settled = false
    const pending = make((r) => {
      if (settled) return
      settled = true
      shares.release(owner)
      resume(settle(r))
    })
    queue.push(pending)
    pump()
    return Effect.sync(() => {
      const i = queue.indexOf(pending)
      if (i >= 0) queue.splice(i, 1)
      if (!settled) {
        settled = true
        shares.release(owner)
      }
    })
  })

/**
 * The process's one pool of a kind, made by `make` on first use; `replace` puts another in its
 * place (other budgets, e.g. in a test) and resolves once the previous one is closed.
 */
export const processWide = <P extends { readonly close: () => Promise<void> }>(make: () => P) => {
  let shared: P | undefined
  return {
    get: (): P => (shared ??= make()),
    replace: async (pool: P): Promise<void> => {
      const previous = shared
      shared = pool
      await previous?.close()
    }
  }
}
