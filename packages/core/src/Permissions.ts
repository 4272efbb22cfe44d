/**
 * Roles, permissions and OAuth scopes (DECISIONS), and the one table of which permission each
 * operation of the API needs.
 *
 * Permissions are written in colon form (`projects:read`); the dotted form (`projects.read`) and
 * `<resource>:manage` (read + write) are accepted on input. `admin` implies every permission.
 */

/** Every permission (spec). */
export const all = [
  "projects:read",
  "projects:write",
  "assets:read",
  "assets:write",
  "members:read",
  "members:write",
  "billing:read",
  "admin"
] as const
/** A permission in canonical colon form. */
export type Permission = (typeof all)[number]

/** Member roles. */
export const roles = ["owner", "admin", "editor", "viewer"] as const
/** A member role. */
export type Role = (typeof roles)[number]
/** Roles an invitation may grant. */
export const invitableRoles = ["admin", "editor", "viewer"] as const

/** What each role is granted. */
export const byRole: Readonly<Record<Role, ReadonlyArray<Permission>>> = {
  owner: ["admin"],
  admin: ["projects:read", "projects:write", "assets:read", "assets:write", "members:read", "members:write", "billing:read"],
  editor: ["projects:read", "projects:write", "assets:read", "assets:write", "members:read"],
  viewer: ["projects:read", "assets:read", "members:read"]
}

/** OAuth scopes (spec). */
export const scopes = ["profile", "projects:read", "projects:write", "assets:read", "assets:write", "members:read", "offline_access"] as const
/** An OAuth scope. */
export type Scope = (typeof scopes)[number]

/** What each scope lets an application do, in plain words (the consent page, the OAuth reference). */
export const scopeWords: Readonly<Record<Scope, string>> = {
  profile: "See your name and email address",
  "projects:read": "View your account's projects and their boundaries",
  "projects:write": "Create, change, archive and delete projects",
  "assets:read": "View the assets tracked in projects",
  "assets:write": "Create, change and delete assets",
  "members:read": "See who is on your team",
  offline_access: "Keep access when you are not using it (refresh tokens)"
}

/** A scope's words, or the scope itself when it is not one of `scopes`. */
export const describeScope = (scope: string): string => (scopeWords as Readonly<Record<string, string>>)[scope] ?? scope

const isPermission = (s: string): s is Permission => (all as ReadonlyArray<string>).includes(s)

/**
 * Canonical permissions for one spelling: `projects.read` → [`projects:read`],
 * `assets:manage` → [`assets:read`, `assets:write`]; `undefined` when it names no permission.
 */
export const normalizeOne = (spelling: string): ReadonlyArray<Permission> | undefined => {
  const colon = spelling.trim().toLowerCase().replace(".", ":")
  if (isPermission(colon)) return [colon]
  const manage = /^(projects|assets|members):manage$/.exec(colon)
  if (manage) return [`${manage[1]}:read` as Permission, `${manage[1]}:write` as Permission]
  return undefined
}

/** Normalises a list of spellings: canonical, de-duplicated, in catalogue order. */
export const normalize = (spellings: ReadonlyArray<string>): { readonly permissions: ReadonlyArray<Permission>; readonly unknown: ReadonlyArray<string> } => {
  const found = new Set<Permission>()
  const unknown: Array<string> = []
  for (const s of spellings) {
    const p = normalizeOne(s)
    if (p) p.forEach((x) => found.add(x))
    else unknown.push(s)
  }
  return { permissions: all.filter((p) => found.has(p)), unknown }
}

/** Whether a set of granted permissions allows `required` (`admin` implies all). */
export const allows = (granted: ReadonlyArray<Permission>, required: Permission): boolean => granted.includes("admin") || granted.includes(required)

/** Every permission a set implies, expanded (`admin` → all of them). */
export const expand = (granted: ReadonlyArray<Permission>): ReadonlyArray<Permission> =>
  granted.includes("admin") ? all : all.filter((p) => granted.includes(p))

/**
 * An OAuth token's permissions: its scopes that are permissions, intersected with what the user's
 * current role allows. `profile` and `offline_access` grant no API permission.
 */
export const forOAuth = (granted: ReadonlyArray<string>, role: Role): ReadonlyArray<Permission> => {
  const roleAllows = expand(byRole[role])
  const isScope = (p: string) => (scopes as ReadonlyArray<string>).includes(p)
  return all.filter((p) => isScope(p) && granted.includes(p) && roleAllows.includes(p))
}

/** A key's permissions may not exceed its creator's: the subset of `requested` that `creator` allows. */
export const within = (requested: ReadonlyArray<Permission>, creator: ReadonlyArray<Permission>): boolean =>
  requested.every((p) => (p === "admin" ? creator.includes("admin") : allows(creator, p)))

/** Every operation of the API, and what it needs: a permission, or just a valid token. */
export const required = {
  "projects.list": "projects:read",
  "projects.get": "projects:read",
  "projects.create": "projects:write",
  "projects.update": "projects:write",
  "projects.delete": "projects:write",
  "projects.archive": "projects:write",
  "projects.restore": "projects:write",
  "assets.list": "assets:read",
  "assets.get": "assets:read",
  "assets.create": "assets:write",
  "assets.update": "assets:write",
  "assets.delete": "assets:write",
  "members.list": "members:read",
  "members.invite": "members:write",
  "members.update": "members:write",
  "members.remove": "members:write",
  "account.get": "any",
  "account.update": "admin",
  "account.usage": "billing:read",
  "webhooks.list": "admin",
  "webhooks.create": "admin",
  "webhooks.update": "admin",
  "webhooks.delete": "admin",
  "webhooks.test": "admin",
  "webhooks.logs": "admin",
  "auth.verify": "any",
  "credentials.list": "admin",
  "credentials.create": "admin",
  "credentials.revoke": "admin",
  "events.list": "admin",
  "webhooks.redeliver": "admin"
} as const satisfies Record<string, Permission | "any">

/** An operation of the API. */
export type Operation = keyof typeof required

/** Whether `granted` may perform `operation`. */
export const mayPerform = (granted: ReadonlyArray<Permission>, operation: Operation): boolean => {
  const need = required[operation]
  return need === "any" || allows(granted, need)
}
