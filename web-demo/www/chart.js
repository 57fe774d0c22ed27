// Line charts of the demo pages, drawn by uPlot (bundled into vendor/ at build time by
// scripts/build-web-demo.sh; nothing is loaded from elsewhere).
//
// Prices and costs reach this module as exact decimal strings. The chart needs a number for
// each point's position only; what a person reads (the legend while hovering) is always the
// exact string of the point, never the float.

import uPlot from "./vendor/uPlot.esm.js";

// Distinct for the colour-blind (Okabe-Ito, then two more), one per line.
export const PALETTE = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#6b4c9a", "#000000", "#8c564b", "#7f7f7f"];

const DAY = 86400;

/** "2025-06-10" -> seconds since the epoch at 00:00 UTC (uPlot's time unit). */
export function dateToSeconds(date) {
  const [y, m, d] = date.split("-").map(Number);
  return Date.UTC(y, m - 1, d) / 1000;
}

/** Seconds since the epoch -> "2025-06-10" (UTC). */
export function secondsToDate(seconds) {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/**
 * Step lines over time on a shared axis. `lines`: [{label, color, steps: [{date, value}],
 * until}] where each step's `value` (exact decimal string) holds from its `date` until the next
 * step, and the last one until `until` (a date). `markers`: [{date, label}] drawn as dashed
 * vertical lines. Returns the uPlot instance.
 */
export function stepChart(box, { lines, markers = [], yLabel }) {
  // A price followed by days without one (a null step) is drawn up to its last day: a stepped
  // path draws a level only towards a next point that has a value.
  const lastDays = (l) => l.steps.filter((s) => s.value === null).map((s) => dateToSeconds(s.date) - DAY);
  const xs = [...new Set(lines.flatMap((l) => [...l.steps.map((s) => dateToSeconds(s.date)), ...lastDays(l), dateToSeconds(l.until)]))].sort((a, b) => a - b);
  const exact = lines.map((line) => {
    const starts = line.steps.map((s) => dateToSeconds(s.date));
    const end = dateToSeconds(line.until);
    return xs.map((x) => {
      if (x < starts[0] || x > end) return null;
      let held = null;
      for (let i = 0; i < starts.length && starts[i] <= x; i++) held = line.steps[i].value;
      return held;
    });
  });
  const data = [xs, ...exact.map((texts) => texts.map((t) => (t === null ? null : Number(t))))];
  const stepped = uPlot.paths.stepped({ align: 1 });
  return draw(box, data, {
    scales: { x: { time: true } },
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
    axes: [{}, { label: yLabel, size: 60 }],
    series: [
      { label: "Date", value: (u, x) => (x == null ? "–" : secondsToDate(x)) },
      ...lines.map((line, i) => ({
        label: line.label,
        stroke: line.color,
        width: 2,
        paths: stepped,
        // Dots would also sit where another channel changed: the steps table lists the real ones.
        points: { show: false },
        value: (u, v, si, idx) => (idx == null || exact[i][idx] === null ? "–" : `$${exact[i][idx]}`),
      })),
    ],
    plugins: [markerPlugin(markers.map((m) => ({ x: dateToSeconds(m.date), label: m.label })))],
    padX: DAY,
  });
}

/**
 * Lines over a shared numeric x axis with logarithmic scales (the calculator's cost against
 * requests per month). `xs`: numbers; `lines`: [{label, color, exact: [decimal strings]}];
 * `markers`: [{x, label}].
 */
export function logChart(box, { xs, lines, markers = [], xLabel, yLabel, xValue }) {
  const data = [xs, ...lines.map((l) => l.exact.map((t) => Math.max(Number(t), 1e-6)))];
  return draw(box, data, {
    scales: { x: { time: false, distr: 3 }, y: { distr: 3 } },
    // On log scales uPlot passes null for the ticks it leaves unlabelled.
    axes: [
      { label: xLabel, values: (u, ticks) => ticks.map((t) => (t == null ? null : short(t))) },
      { label: yLabel, size: 70, values: (u, ticks) => ticks.map((t) => (t == null ? null : `$${short(t)}`)) },
    ],
    series: [
      { label: xLabel, value: (u, x) => (x == null ? "–" : xValue(x)) },
      ...lines.map((line) => ({
        label: line.label,
        stroke: line.color,
        width: 2,
        value: (u, v, si, idx) => (idx == null ? "–" : `$${line.exact[idx]}`),
      })),
    ],
    plugins: [markerPlugin(markers)],
  });
}

/** 1500000 -> "1.5M": tick labels only. */
function short(n) {
  for (const [size, suffix] of [[1e12, "T"], [1e9, "B"], [1e6, "M"], [1e3, "K"]]) {
    if (Math.abs(n) >= size) return `${Number((n / size).toPrecision(3))}${suffix}`;
  }
  return `${Number(n.toPrecision(3))}`;
}

function draw(box, data, options) {
  const { padX, ...opts } = options;
  if (box.chart) box.chart.destroy();
  const width = Math.max(280, box.clientWidth);
  const height = width < 600 ? 260 : 340;
  const chart = new uPlot(
    {
      width,
      height,
      cursor: { drag: { x: false, y: false } },
      legend: { live: true },
      ...opts,
      scales: padX
        ? { ...opts.scales, x: { ...opts.scales.x, range: (u, min, max) => [min - padX, max + padX] } }
        : opts.scales,
    },
    data,
    box,
  );
  box.chart = chart;
  if (!box.resizer) {
    box.resizer = new ResizeObserver(() => {
      const w = Math.max(280, box.clientWidth);
      if (box.chart && Math.abs(box.chart.width - w) > 1) box.chart.setSize({ width: w, height: w < 600 ? 260 : 340 });
    });
    box.resizer.observe(box);
  }
  return chart;
}

/** Dashed vertical lines with a short label at the top, for events on the x axis. */
function markerPlugin(markers) {
  return {
    hooks: {
      draw: [
        (u) => {
          const { ctx } = u;
          const { top, height, left, width } = u.bbox;
          ctx.save();
          ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
          ctx.fillStyle = "#3d4654";
          ctx.strokeStyle = "#5b6676";
          ctx.setLineDash([4 * devicePixelRatio, 4 * devicePixelRatio]);
          ctx.lineWidth = devicePixelRatio;
          markers.forEach((m, i) => {
            const x = Math.round(u.valToPos(m.x, "x", true));
            if (x < left || x > left + width) return;
            ctx.beginPath();
            ctx.moveTo(x, top);
            ctx.lineTo(x, top + height);
            ctx.stroke();
            ctx.fillText(m.label, Math.min(x + 3 * devicePixelRatio, left + width - ctx.measureText(m.label).width), top + (12 + 13 * (i % 3)) * devicePixelRatio);
          });
          ctx.restore();
        },
      ],
    },
  };
}
