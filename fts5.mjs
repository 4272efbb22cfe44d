import D from "better-sqlite3"
import { existsSync } from "node:fs"
const file = "/work/fts5.db"
const fresh = !existsSync(file)
const db = new D(file)
db.pragma("journal_mode = wal")
if (fresh) {
db.exec(`create table projects (id text primary key, account_id text not null, name text not null, slug text not null, description text, geometry text, area_hectares real not null, bbox text, status text not null, created_by text, sort_name text not null, search_text text not null, created_at text not null, updated_at text not null);
create index projects_by_created on projects (account_id, created_at, id);
create index projects_by_area on projects (account_id, area_hectares, id);
create virtual table projects_fts using fts5(search_text, content='projects', content_rowid='rowid', tokenize='trigram');
create trigger projects_fts_insert after insert on projects begin insert into projects_fts (rowid, search_text) values (new.rowid, new.search_text); end;
create virtual table pfts2 using fts5(search_text, account_id unindexed, tokenize='trigram');
`)
const words = ["forest","river","oak","pine","valley","ridge","north","south","cedar","birch","alder","spruce","meadow","brook","hill","lake"]
const ins = db.prepare("insert into projects values (?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
const ins2 = db.prepare("insert into pfts2 (rowid, search_text, account_id) values (?,?,?)")
const small = JSON.stringify({type:"Polygon",coordinates:[Array.from({length:10},(_, i)=>[10+Math.cos(i)*0.01, 10+Math.sin(i)*0.01])]})
const big = JSON.stringify({type:"Polygon",coordinates:[Array.from({length:1000},(_, i)=>[10+Math.cos(i)*0.01, 10+Math.sin(i)*0.01])]})
const N=1000000
let t=performance.now()
for (let b=0;b<N;b+=100000) db.transaction(() => { for (let i=b;i<b+100000;i++) { const name = `${words[i%16]} ${words[(i*7)%16]} plot ${i}${i%100===0?" quillwort":""}`; const st = `${name}\n`.toLowerCase(); const r = ins.run("prj_"+String(i).padStart(22,"0"), "acc_1", name, "s"+i, null, i%100===50?big:small, (i*37)%1000/10, "[1,2,3,4]", i%3?"active":"draft", null, name.toLowerCase(), st, new Date(1e12+i*1000).toISOString(), new Date(1e12+i*1000).toISOString()); ins2.run(r.lastInsertRowid, st, "acc_1") } })()
console.log("insert", performance.now()-t)
db.exec("analyze")
}
const T = (n, q, ...a) => { console.log(n, db.prepare("explain query plan "+q).all(...a).map(r=>r.detail).join(" | ")); db.prepare(q).all(...a); const t=performance.now(); let r; for(let i=0;i<5;i++) r=db.prepare(q).all(...a); console.log("   ", ((performance.now()-t)/5).toFixed(3),"ms", r.length, JSON.stringify(r[0]).slice(0,60)) }
const O = "order by created_at desc, id desc limit 21"
for (const term of ["quillwort", "plot 12345", "forest"]) {
  console.log("==", term)
  const ph = `"${term}"`
  T("in-list(planner)", `select * from projects where account_id='acc_1' and rowid in (select rowid from projects_fts where projects_fts match ?) ${O}`, ph)
  T("in-list(walk)", `select * from projects where account_id='acc_1' and +rowid in (select rowid from projects_fts where projects_fts match ?) ${O}`, ph)
  T("instr-walk", `select * from projects where account_id='acc_1' and instr(search_text, ?) > 0 ${O}`, term)
  T("exists-walk", `select * from projects p where account_id='acc_1' and exists (select 1 from projects_fts f where projects_fts match ? and f.rowid = p.rowid) ${O}`, ph)
  T("count-fts-own-1001", `select count(*) n from (select 1 from pfts2 where pfts2 match ? and account_id = 'acc_1' limit 1001)`, ph)
  T("count-ext-1001", `select count(*) n from (select 1 from projects where account_id='acc_1' and rowid in (select rowid from projects_fts where projects_fts match ?) limit 1001)`, ph)
  T("sorted-own", `select * from projects where rowid in (select rowid from pfts2 where pfts2 match ? and account_id = 'acc_1') ${O}`, ph)
}
