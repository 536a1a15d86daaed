/**
 * The scaling chart of bench/peers/cold_sync.ts as a standalone SVG, drawn from the bench's own
 * medians: time-to-synced per object and peak RSS per object against N, one line per program.
 */

/** One program's medians at each size. */
export interface ScalingSeries {
  readonly name: string;
  readonly points: readonly { n: number; usPerObject: number; kbPerObject: number }[];
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"];
const W = 360, H = 240, PAD_L = 56, PAD_B = 40, PAD_T = 28, GAP = 40;

function esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function panel(
  x0: number,
  title: string,
  series: readonly ScalingSeries[],
  value: (p: ScalingSeries["points"][number]) => number,
): string {
  const ns = [...new Set(series.flatMap((s) => s.points.map((p) => p.n)))].sort((a, b) => a - b);
  const max = Math.max(...series.flatMap((s) => s.points.map(value))) * 1.1 || 1;
  const plotW = W - PAD_L - 10, plotH = H - PAD_T - PAD_B;
  // Sizes are spread evenly (they grow by ~2-5x steps), labelled with their values.
  const xOf = (n: number) =>
    x0 + PAD_L + (ns.length === 1 ? plotW / 2 : (ns.indexOf(n) / (ns.length - 1)) * plotW);
  const yOf = (v: number) => PAD_T + plotH - (v / max) * plotH;
  const parts = [
    `<text x="${x0 + W / 2}" y="16" text-anchor="middle" font-weight="bold">${esc(title)}</text>`,
  ];
  parts.push(
    `<line x1="${x0 + PAD_L}" y1="${PAD_T + plotH}" x2="${x0 + PAD_L + plotW}" y2="${
      PAD_T + plotH
    }" stroke="#333"/>`,
  );
  parts.push(
    `<line x1="${x0 + PAD_L}" y1="${PAD_T}" x2="${x0 + PAD_L}" y2="${PAD_T + plotH}" stroke="#333"/>`,
  );
  for (let t = 0; t <= 4; t++) {
    const v = (max / 4) * t;
    parts.push(
      `<text x="${x0 + PAD_L - 6}" y="${yOf(v) + 4}" text-anchor="end">${
        v < 10 ? v.toFixed(1) : v.toFixed(0)
      }</text>`,
      `<line x1="${x0 + PAD_L}" y1="${yOf(v)}" x2="${x0 + PAD_L + plotW}" y2="${yOf(v)}" stroke="#ddd"/>`,
    );
  }
  for (const n of ns) {
    parts.push(`<text x="${xOf(n)}" y="${PAD_T + plotH + 16}" text-anchor="middle">${n / 1000}k</text>`);
  }
  parts.push(`<text x="${x0 + PAD_L + plotW / 2}" y="${H - 6}" text-anchor="middle">objects (N)</text>`);
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const pts = s.points.map((p) => `${xOf(p.n).toFixed(1)},${yOf(value(p)).toFixed(1)}`);
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.join(" ")}"/>`);
    for (const p of s.points) {
      parts.push(
        `<circle cx="${xOf(p.n).toFixed(1)}" cy="${yOf(value(p)).toFixed(1)}" r="3" fill="${color}"/>`,
      );
    }
  });
  return parts.join("\n");
}

/** The SVG text: two panels and a legend. */
export function scalingSvg(series: readonly ScalingSeries[], subtitle: string): string {
  const width = 2 * W + GAP;
  const legendY = H + 18;
  const legend = series.map((s, i) =>
    `<rect x="${10 + i * 150}" y="${legendY - 10}" width="12" height="12" fill="${
      COLORS[i % COLORS.length]
    }"/>\n` +
    `<text x="${28 + i * 150}" y="${legendY}">${esc(s.name)}</text>`
  ).join("\n");
  const body = [
    `<rect width="100%" height="100%" fill="white"/>`,
    panel(0, "time-to-synced per object (µs)", series, (p) => p.usPerObject),
    panel(W + GAP, "peak RSS per object (KB)", series, (p) => p.kbPerObject),
    legend,
    `<text x="${width - 6}" y="${H + 38}" text-anchor="end" fill="#666">${esc(subtitle)}</text>`,
  ].join("\n");
  // Laid out the way `deno fmt` formats SVG (one child per line, indented, " />"), so the file stays fmt-clean.
  const children = body.split("\n").map((line) => `  ${line.replace(/"\/>/g, '" />')}`).join("\n");
  return `<svg
  xmlns="http://www.w3.org/2000/svg"
  width="${width}"
  height="${H + 44}"
  font-family="sans-serif"
  font-size="11"
>
${children}
</svg>
`;
}
