/**
 * The invitation page: `GET /invitations/accept?token=…` asks for a name and a password;
 * `POST /invitations/accept` activates the member (`member.joined`). Unknown, expired or used
 * links get a clear page.
 */
import { type Canopy, type CanopyClient, Members, Tokens } from "@canopy/core"
import { Effect, Exit } from "effect"
import type { ApiRequest, ApiResponse } from "../http/handler.ts"
import { cookies, domainError, escape, formRefused, page, readForm, same, setCookie, SMALL_FORM } from "./html.ts"
import type { Site } from "./site.ts"

const PRE_CSRF = "canopy_csrf"

export const invitationPages = (canopy: CanopyClient, site: Site) => {
  const run = <A, E>(e: Effect.Effect<A, E, Canopy.Runtime>) => canopy.runExit(e)

  const formPage = (req: ApiRequest, token: string, status = 200, error?: string, details: ReadonlyArray<{ field: string; message: string }> = []) => {
    const csrf = Tokens.generate("session")
    return page(status, "Join your team", `<h1>Join your team on Canopy</h1>
${
      error ? `<div class="error" role="alert"><p>${escape(error)}</p>${
        details.length ? `<ul>${details.map((d) => `<li>${escape(d.field)}: ${escape(d.message)}</li>`).join("")}</ul>` : ""
      }</div>` : ""
    }
<form method="post" action="${escape(site.path("/invitations/accept"))}"><input type="hidden" name="token" value="${
      escape(token)
    }"><input type="hidden" name="csrf" value="${escape(csrf)}">
<label for="name">Your name</label><input id="name" name="name" required maxlength="200" autocomplete="name">
<label for="password">Choose a password (at least 10 characters)</label><input id="password" name="password" type="password" minlength="10" required autocomplete="new-password">
<button type="submit">Join</button></form>`, { "set-cookie": setCookie(PRE_CSRF, csrf, { secure: site.secure(req), path: site.basePath, maxAgeS: 3600 }) })
  }

  const invalid = (message: string, status: number) =>
    page(status, "Invitation",
      `<h1>This invitation link cannot be used</h1><p class="error">${escape(message)}</p><p>Ask whoever invited you for a new invitation.</p>`)

  return {
    "GET /invitations/accept": async (req: ApiRequest): Promise<ApiResponse> => {
      const token = req.query.get("token") ?? ""
      return Tokens.kindOf(token) === "invitation" ? formPage(req, token) : invalid("The link is not valid.", 404)
    },
    "POST /invitations/accept": async (req: ApiRequest): Promise<ApiResponse> => {
      // The form's CSRF cookie before its body: without one nothing of the body is read.
      const expected = cookies(req)[PRE_CSRF]
      if (!expected) return invalid("The form expired; open the link again.", 403)
      const read = readForm(req, SMALL_FORM)
      if (!read.ok) return formRefused(read.message)
      const f = read.fields
      if (!same(f.csrf, expected)) return invalid("The form expired; open the link again.", 403)
      const exit = await run(Effect.flatMap(Members, (m) => m.accept(f.token ?? "", { name: f.name ?? "", password: f.password ?? "" })))
      if (Exit.isSuccess(exit)) {
        return page(200, "Welcome",
          `<h1>Welcome, ${escape(exit.value.name ?? "")}</h1><p>You have joined the team as ${
            escape(exit.value.role)
          }. You can now sign in to applications with ${escape(exit.value.email)}.</p>`)
      }
      const err = domainError(exit)
      if (err?._tag === "ValidationError") return formPage(req, f.token ?? "", 422, "Please correct the form.", err.details)
      if (err?._tag === "NotFound") return invalid("The link is not valid.", 404)
      if (err?._tag === "Conflict") return invalid(err.message, 410)
      return invalid("Something went wrong; try again.", 500)
    }
  }
}
