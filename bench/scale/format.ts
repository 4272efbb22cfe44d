/** How the scale and map benchmarks print numbers. */

/** A number with thousands separators and exactly `digits` decimals. */
export const fmt = (x: number, digits = 0) => x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })

/** Milliseconds: whole from 100, one decimal from 10, two below. */
export const ms = (x: number) => (x >= 100 ? fmt(x) : x >= 10 ? fmt(x, 1) : fmt(x, 2))

/** Prints one line. */
export const say = (line: string) => console.log(line)
