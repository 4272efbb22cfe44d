/**
 * The zoom grid's migration (`17_zoom_cells`; `TileGrid`, the tiles' clusters): the column, table
 * and triggers that keep each account's cell counts, and the placing of the projects stored before.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { cellOf, FINEST, LEVELS } from "../TileGrid.ts"

/** Hectares as an exact integer count of 1/10,000 ha (1 m²), as the account totals count them. */
const areaUnits = (row: string) => `cast(round(${row}.area_hectares * 10000) as bigint)`

/** The key at `level` of a finest zoom-grid key (`TileGrid`): the key shifted right two bits a level. */
const cellAt = (key: string, level: string | number) => `(${key} >> (2 * (${FINEST} - ${level})))`

/**
 * The zoom grid's counts (`TileGrid`): each project's finest cell (`zoom_cell`, written with its
 * box) and, per account, the projects and area of every non-empty cell at each of `LEVELS`, kept by
 * triggers in the same transaction as every project write. On PostgreSQL the triggers are
 * per statement, over transition tables (one upsert per cell a statement touches, in key order), and
 * fire after `projects_totals_*` (alphabetical order), so the account's totals row is always locked
 * first and writes of one account never wait on each other's cells in a cycle. Existing projects
 * are placed here, 500 at a time in id order; the triggers count them.
 */
export const zoomCells = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const dialect = sql.onDialectOrElse({ pg: () => "pg" as const, orElse: () => "sqlite" as const })
  const integer = dialect === "pg" ? "bigint" : "integer"
  const statements = [
    `alter table projects add column zoom_cell ${integer}`,
    `create table zoom_cells (
      account_id text not null references accounts(id) on delete cascade, level integer not null, cell ${integer} not null,
      projects ${integer} not null, area ${integer} not null,
      primary key (account_id, level, cell))${dialect === "sqlite" ? " without rowid" : ""}`,
    ...(dialect === "sqlite" ? zoomCellTriggersSqlite : zoomCellTriggersPg)
  ]
  for (const statement of statements) yield* sql.unsafe(statement)
  for (let after = "";;) {
    const rows = yield* sql<{ id: string; bbox: string | null }>`select id, bbox from projects where id > ${after} order by id limit 500`
    if (rows.length === 0) break
    const cells = rows.flatMap((r) => r.bbox === null ? [] : [[String(r.id), cellOf(JSON.parse(String(r.bbox)))]])
    if (cells.length > 0) {
      const json = JSON.stringify(cells)
      yield* dialect === "pg"
        ? sql`update projects set zoom_cell = v.cell from (select value->>0 as id, (value->>1)::bigint as cell from json_array_elements(${json}::json)) v
            where projects.id = v.id`
        : sql`update projects set zoom_cell = v.cell from (select json_extract(value, '$[0]') as id, json_extract(value, '$[1]') as cell from json_each(${json})) v
            where projects.id = v.id`
    }
    after = String(rows[rows.length - 1]!.id)
  }
})

/** SQLite: row triggers adding (`new`) and removing (`old`) a project's cells at each level. */
const zoomCellTriggersSqlite = (() => {
  const add = LEVELS.map((l) =>
    `insert into zoom_cells (account_id, level, cell, projects, area)
      select new.account_id, ${l}, ${cellAt("new.zoom_cell", l)}, 1, ${areaUnits("new")} where new.zoom_cell is not null
      on conflict (account_id, level, cell) do update set projects = projects + 1, area = area + excluded.area;`
  ).join("\n")
  const remove = LEVELS.map((l) =>
    `update zoom_cells set projects = projects - 1, area = area - ${areaUnits("old")}
        where account_id = old.account_id and level = ${l} and cell = ${cellAt("old.zoom_cell", l)};
      delete from zoom_cells where account_id = old.account_id and level = ${l} and cell = ${cellAt("old.zoom_cell", l)} and projects <= 0;`
  ).join("\n")
  return [
    `create trigger projects_zoom_cells_insert after insert on projects when new.zoom_cell is not null begin ${add} end`,
    `create trigger projects_zoom_cells_delete after delete on projects when old.zoom_cell is not null begin ${remove} end`,
    `create trigger projects_zoom_cells_update after update of zoom_cell, area_hectares on projects
       when old.zoom_cell is not new.zoom_cell or old.area_hectares <> new.area_hectares begin ${remove} ${add} end`
  ]
})()

/** PostgreSQL: statement triggers moving each touched cell once by the statement's net change. */
const zoomCellTriggersPg = (["insert", "update", "delete"] as const).flatMap((event) => {
  const levels = `(values ${LEVELS.map((l) => `(${l})`).join(", ")}) as l(level)`
  const changes = [
    ...(event === "delete" ? [] : ["select account_id, zoom_cell, area_hectares, 1 as sign from new_rows where zoom_cell is not null"]),
    ...(event === "insert" ? [] : ["select account_id, zoom_cell, area_hectares, -1 as sign from old_rows where zoom_cell is not null"])
  ].join(" union all ")
  const tables = event === "insert" ? "new table as new_rows" : event === "delete" ? "old table as old_rows" : "old table as old_rows new table as new_rows"
  return [
    `create function projects_zoom_cells_${event}() returns trigger language plpgsql as $body$
     begin
       insert into zoom_cells (account_id, level, cell, projects, area)
       select account_id, level, cell, projects, area from (
         select c.account_id, l.level, ${cellAt("c.zoom_cell", "l.level")} as cell, sum(c.sign) as projects, sum(c.sign * ${areaUnits("c")}) as area
         from (${changes}) c cross join ${levels} group by 1, 2, 3) d
       where d.projects <> 0 or d.area <> 0
       order by account_id, level, cell
       on conflict (account_id, level, cell) do update set projects = zoom_cells.projects + excluded.projects, area = zoom_cells.area + excluded.area;
       ${
      event === "insert" ? "" : `delete from zoom_cells z using (
           select distinct o.account_id, l.level, ${
        cellAt("o.zoom_cell", "l.level")
      } as cell from old_rows o cross join ${levels} where o.zoom_cell is not null) g
         where z.account_id = g.account_id and z.level = g.level and z.cell = g.cell and z.projects <= 0;`
    }
       return null;
     end $body$`,
    `create trigger projects_zoom_cells_${event} after ${event} on projects referencing ${tables}
     for each statement execute function projects_zoom_cells_${event}()`
  ]
})
