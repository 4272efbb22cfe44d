/**
 * Statements whose plans do not depend on the values bound to them, so that SQLite never
 * re-prepares a cached statement.
 *
 * SQLite's planner may look at a bound value while it plans: for a `column = ?` term that an
 * index does not take, in a query that joins or orders (`whereLoopOutputAdjust`: is the value 0
 * or 1?), for `LIMIT ?`, and for a `LIKE ?` pattern. It then marks the statement to be prepared
 * again whenever that parameter is bound anew, and `sqlite3_clear_bindings` — which
 * better-sqlite3 calls after every run — expires such a statement unconditionally. So a list
 * page, `select … where account_id = ? order by created_at desc, id limit ?`, was compiled afresh
 * on every request (45 against 24 µs on the http benchmark's file; `select * from webhooks where
 * account_id = ? order by …` 22 against 2.6 µs). A placeholder written `+?` is an expression the
 * planner does not read as a value: the same plans (an index still takes `column = +?`), the
 * same affinities (a bound value has none, with or without the unary plus),
 * and the prepared statement stays prepared.
 */

/**
 * `sql` with each placeholder `?` (or `?NNN`) written `+?`; string literals, quoted identifiers
 * and comments are left as they are.
 */
export const planIndependent = (sql: string): string => {
  if (!sql.includes("?")) return sql
  let out = ""
  let from = 0
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]
    if (c === "'" || c === "\"" || c === "`" || c === "[") {
      const close = c === "[" ? "]" : c
      let j = i + 1
      // A quote inside a literal or identifier is written twice ('' or "").
      while (j < sql.length && (sql[j] !== close || (close !== "]" && sql[j + 1] === close && ++j))) j++
      i = j
    } else if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i)
      i = end < 0 ? sql.length : end
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2)
      i = end < 0 ? sql.length : end + 1
    } else if (c === "?") {
      out += sql.slice(from, i) + "+"
      from = i
    }
  }
  return out + sql.slice(from)
}
