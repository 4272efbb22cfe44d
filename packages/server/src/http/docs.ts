/**
 * `/docs`: a self-contained API reference page rendered from the OpenAPI document (no external
 * scripts or stylesheets).
 */

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

interface Operation {
  readonly summary?: string
  readonly description?: string
  readonly tags?: ReadonlyArray<string>
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string }>
  readonly requestBody?: { readonly content: Record<string, { readonly schema: unknown }> }
  readonly responses: Record<string, unknown>
}

/**
 * The HTML page for an OpenAPI document; `basePath` is the path Canopy is reached under
 * (`/canopy` when mounted there), for the link to the machine-readable document.
 */
export const page = (doc: Record<string, unknown>, basePath = ""): string => {
  const paths = doc.paths as Record<string, Record<string, Operation>>
  const byTag = new Map<string, Array<string>>()
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = op.tags?.[0] ?? "Other"
      const params = (op.parameters ?? []).map((p) => `<code>${escape(p.name)}</code> (${p.in})`).join(", ")
      const body = op.requestBody
        ? `<details><summary>Request body</summary><pre>${escape(JSON.stringify(op.requestBody.content["application/json"]?.schema, null, 2))}</pre></details>`
        : ""
      const statuses = Object.keys(op.responses).join(" · ")
      const html = `<section class="op"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p>${escape(op.summary ?? "")}. ${escape(op.description ?? "")}</p>${params ? `<p>Parameters: ${params}</p>` : ""}${body}<p class="s">Responses: ${statuses}</p></section>`
      byTag.set(tag, [...(byTag.get(tag) ?? []), html])
    }
  }
  const info = doc.info as { title: string; description: string; version: string }
  const sections = [...byTag].map(([tag, ops]) => `<h2 id="${escape(tag)}">${escape(tag)}</h2>${ops.join("\n")}`).join("\n")
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(info.title)} reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b2b1e}
h1{color:#1f5130}.op{border:1px solid #d6e2d8;border-radius:6px;padding:.5rem 1rem;margin:.75rem 0}
.m{display:inline-block;min-width:4.5rem;font-size:.8rem;padding:.1rem .4rem;border-radius:4px;color:#fff;text-align:center}
.get{background:#2f7d4a}.post{background:#2b62a3}.put{background:#a36b2b}.delete{background:#a32b2b}
pre{background:#f4f7f4;padding:.5rem;overflow:auto}.s{color:#555;font-size:.9rem}</style></head>
<body><h1>${escape(info.title)} <small>v${escape(info.version)}</small></h1><p>${escape(info.description)}</p>
<p>Machine-readable: <a href="${escape(basePath)}/v1/openapi.json">${escape(basePath)}/v1/openapi.json</a>. Authenticate with <code>Authorization: Bearer &lt;token&gt;</code>.</p>
${sections}</body></html>`
}
