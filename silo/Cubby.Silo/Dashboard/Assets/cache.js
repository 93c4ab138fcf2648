// Cubby cache page: polls the silo's JSON API once a second and draws what it returns. No libraries, no external URLs.
"use strict";

(() => {
  const POLL_MS = 1000;
  const WINDOW_SECONDS = 300;
  const PALETTE = ["#2f6fde", "#e8590c", "#2b8a3e", "#ae3ec9", "#c92a2a", "#0c8599", "#5f3dc4", "#e67700"];
  const CHARTS = [
    { id: "chart-ops", measure: "ops", format: formatNumber },
    { id: "chart-hit-ratio", measure: "hitRatio", format: value => (value * 100).toFixed(0) + "%", max: 1 },
    { id: "chart-p99", measure: "p99Ms", format: value => (value < 10 ? String(Number(value.toFixed(2))) : formatNumber(Math.round(value))) },
    { id: "chart-evictions", measure: "evictions", format: formatNumber },
    { id: "chart-expirations", measure: "expirations", format: formatNumber },
    { id: "chart-keys", measure: "keys", format: formatNumber },
  ];

  const colours = new Map();
  let lastReport = null;

  function colourOf(siloId) {
    if (!colours.has(siloId)) {
      colours.set(siloId, PALETTE[colours.size % PALETTE.length]);
    }
    return colours.get(siloId);
  }

  function formatNumber(value) {
    if (value === null || value === undefined) return "–";
    if (Math.abs(value) >= 1e6) return (value / 1e6).toFixed(1) + "M";
    if (Math.abs(value) >= 1e4) return (value / 1e3).toFixed(1) + "k";
    if (Number.isInteger(value)) return String(value);
    return Math.abs(value) >= 10 ? value.toFixed(1) : String(Number(value.toFixed(2)));
  }

  function formatPercent(value) {
    return value === null || value === undefined ? "–" : (value * 100).toFixed(1) + "%";
  }

  function formatBytes(value) {
    if (value === null || value === undefined) return "–";
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
    return (unit === 0 ? value : value.toFixed(1)) + " " + units[unit];
  }

  function formatTime(iso) {
    return new Date(iso).toLocaleTimeString([], { hour12: false });
  }

  function shortId(id) {
    return id.length > 40 ? id.slice(0, 24) + "…" + id.slice(-12) : id;
  }

  function element(tag, properties, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(properties || {})) {
      if (key === "text") node.textContent = value;
      else if (key === "className") node.className = value;
      else if (key.startsWith("data-") || key === "title" || key === "datetime") node.setAttribute(key, value);
      else node[key] = value;
    }
    for (const child of children || []) node.append(child);
    return node;
  }

  function last(array) {
    return array && array.length ? array[array.length - 1] : null;
  }

  // ---- data ----

  function liveSilos(report) {
    return report.silos.filter(silo => silo.stats);
  }

  function totals(report) {
    let ops = 0, keys = 0, memory = 0, hits = 0, weight = 0;
    for (const silo of liveSilos(report)) {
      const series = silo.stats.series;
      const siloOps = last(series.ops) || 0;
      ops += siloOps;
      keys += silo.stats.keys;
      memory += silo.stats.memoryBytes;
      const ratio = last(series.hitRatio);
      if (ratio !== null && ratio !== undefined) { hits += ratio * Math.max(siloOps, 1); weight += Math.max(siloOps, 1); }
    }
    return { ops, keys, memory, hitRatio: weight ? hits / weight : null };
  }

  // ---- rendering ----

  function renderHeader(report) {
    document.getElementById("cluster-id").textContent = report.clusterId;
    document.getElementById("slot-count").textContent = report.slotCount;
    document.getElementById("self-id").textContent = shortId(report.selfId);
    document.title = "Cubby cache · " + report.clusterId;
  }

  function renderTotals(report) {
    const sum = totals(report);
    const ops = document.getElementById("total-ops");
    ops.textContent = formatNumber(sum.ops);
    ops.dataset.value = String(sum.ops);
    const hitRatio = document.getElementById("total-hit-ratio");
    hitRatio.textContent = formatPercent(sum.hitRatio);
    hitRatio.dataset.value = sum.hitRatio === null ? "" : String(sum.hitRatio);
    const keys = document.getElementById("total-keys");
    keys.textContent = formatNumber(sum.keys);
    keys.dataset.value = String(sum.keys);
    document.getElementById("total-memory").textContent = formatBytes(sum.memory);
    const members = report.silos.filter(silo => silo.status !== "Dead").length;
    document.getElementById("total-silos").textContent = String(liveSilos(report).length) + " / " + members;
  }

  function renderSilos(report) {
    const rows = report.silos.map(silo => {
      const stats = silo.stats;
      const series = stats ? stats.series : null;
      const latest = measure => (series ? last(series[measure]) : null);
      const swatch = element("span", { className: "swatch" });
      swatch.style.setProperty("background", colourOf(silo.id));
      const idCell = element("td", { className: "silo-id", title: silo.id + " (" + silo.status + ")" }, [swatch, shortId(silo.id)]);
      if (silo.isSelf) idCell.append(element("span", { className: "self", text: "(this silo)" }));
      if (silo.status === "Dead") idCell.append(element("span", { className: "state", "data-status": "Dead", text: "dead since " + formatTime(silo.declaredDeadAt) }));
      else if (silo.status !== "Active") idCell.append(element("span", { className: "state", "data-status": silo.status, text: silo.status }));
      if (silo.status !== "Dead" && !silo.reachable) idCell.append(element("span", { className: "unreachable", text: "not answering" }));
      const number = (field, value, text) => element("td", { className: "num", text, "data-field": field, "data-value": value === null || value === undefined ? "" : String(value) });
      const memory = stats ? formatBytes(stats.memoryBytes) + " / " + formatBytes(stats.memoryLimitBytes) : "–";
      return element("tr", { "data-silo-id": silo.id, "data-status": silo.status, "data-reachable": String(silo.reachable) }, [
        idCell,
        element("td", { text: silo.endpoint || "–", "data-field": "endpoint" }),
        number("shards", silo.shards, String(silo.shards)),
        number("keys", stats && stats.keys, stats ? formatNumber(stats.keys) : "–"),
        number("memory", stats && stats.memoryBytes, memory),
        number("hit-ratio", latest("hitRatio"), formatPercent(latest("hitRatio"))),
        number("ops", latest("ops"), formatNumber(latest("ops"))),
        number("evictions", latest("evictions"), formatNumber(latest("evictions"))),
        number("expirations", latest("expirations"), formatNumber(latest("expirations"))),
        number("p99", latest("p99Ms"), latest("p99Ms") === null ? "–" : latest("p99Ms").toFixed(2)),
      ]);
    });
    if (!rows.length) rows.push(element("tr", {}, [element("td", { className: "empty", colSpan: 10, text: "No silos" })]));
    document.getElementById("silo-rows").replaceChildren(...rows);
  }

  function renderBusiestSlots(report) {
    const slots = [];
    for (const silo of liveSilos(report)) {
      for (const slot of silo.stats.busiestSlots) slots.push({ silo, slot: slot.slot, ops: slot.opsPerSecond });
    }
    slots.sort((a, b) => b.ops - a.ops || a.slot - b.slot);
    const rows = slots.slice(0, 10).map(entry => {
      const swatch = element("span", { className: "swatch" });
      swatch.style.setProperty("background", colourOf(entry.silo.id));
      return element("tr", { "data-slot": String(entry.slot), "data-silo-id": entry.silo.id }, [
        element("td", { className: "num", text: String(entry.slot) }),
        element("td", { className: "silo-id", title: entry.silo.id }, [swatch, shortId(entry.silo.id)]),
        element("td", { className: "num", text: formatNumber(entry.ops) }),
      ]);
    });
    if (!rows.length) rows.push(element("tr", {}, [element("td", { className: "empty", colSpan: 3, text: "No keyed commands in the last 10 s" })]));
    document.getElementById("busiest-rows").replaceChildren(...rows);
  }

  function renderLegend(report) {
    const items = report.silos.filter(silo => silo.stats).map(silo => {
      const item = element("li", { text: shortId(silo.id) + " (" + silo.endpoint + ")" });
      item.style.setProperty("--swatch", colourOf(silo.id));
      return item;
    });
    document.getElementById("legend").replaceChildren(...items);
  }

  // ---- charts ----

  function niceCeiling(value) {
    if (value <= 0) return 1;
    const power = Math.pow(10, Math.floor(Math.log10(value)));
    for (const step of [1, 2, 2.5, 5, 10]) {
      if (value <= step * power) return step * power;
    }
    return 10 * power;
  }

  function drawChart(canvas, chart, report) {
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth, height = canvas.clientHeight;
    if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
    }
    const context = canvas.getContext("2d");
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);

    const left = 52, right = 8, top = 6, bottom = 18;
    const plotWidth = width - left - right, plotHeight = height - top - bottom;
    const end = Date.parse(report.time), start = end - WINDOW_SECONDS * 1000;

    let peak = 0;
    const lines = [];
    for (const silo of liveSilos(report)) {
      const series = silo.stats.series;
      const values = series[chart.measure];
      const points = [];
      for (let i = 0; i < series.time.length; i++) {
        if (series.time[i] < start || values[i] === null || values[i] === undefined) continue;
        points.push([series.time[i], values[i]]);
        peak = Math.max(peak, values[i]);
      }
      lines.push({ colour: colourOf(silo.id), points });
    }
    const max = chart.max || niceCeiling(peak);

    context.font = "11px system-ui, sans-serif";
    context.fillStyle = "#667085";
    context.strokeStyle = "#e3e6eb";
    context.lineWidth = 1;
    context.textAlign = "right";
    context.textBaseline = "middle";
    for (let step = 0; step <= 4; step++) {
      const y = top + plotHeight - (plotHeight * step) / 4;
      context.beginPath();
      context.moveTo(left, Math.round(y) + 0.5);
      context.lineTo(left + plotWidth, Math.round(y) + 0.5);
      context.stroke();
      context.fillText(chart.format((max * step) / 4), left - 6, y);
    }
    context.textAlign = "center";
    context.textBaseline = "top";
    for (let minute = 0; minute <= WINDOW_SECONDS / 60; minute++) {
      const x = left + (plotWidth * minute * 60) / WINDOW_SECONDS;
      context.fillText(minute === WINDOW_SECONDS / 60 ? "now" : "-" + (WINDOW_SECONDS / 60 - minute) + "m", x, top + plotHeight + 4);
    }

    context.lineWidth = 1.6;
    context.lineJoin = "round";
    for (const line of lines) {
      context.strokeStyle = line.colour;
      context.beginPath();
      let previous = null;
      for (const [time, value] of line.points) {
        const x = left + ((time - start) / (end - start)) * plotWidth;
        const y = top + plotHeight - (Math.min(value, max) / max) * plotHeight;
        // A gap of more than a few seconds (a silo restarting, a missed sample) is left as a gap.
        if (previous === null || time - previous > 5000) context.moveTo(x, y); else context.lineTo(x, y);
        previous = time;
      }
      context.stroke();
    }
  }

  function drawCharts(report) {
    for (const chart of CHARTS) {
      drawChart(document.getElementById(chart.id), chart, report);
    }
  }

  // ---- polling ----

  function setConnection(state, text) {
    const node = document.getElementById("connection");
    node.dataset.state = state;
    node.textContent = text;
  }

  function render(report) {
    lastReport = report;
    renderHeader(report);
    renderTotals(report);
    renderSilos(report);
    renderLegend(report);
    renderBusiestSlots(report);
    drawCharts(report);
    document.body.dataset.updated = report.time;
  }

  async function poll() {
    try {
      const response = await fetch("api/silos?seconds=" + WINDOW_SECONDS, { cache: "no-store", credentials: "same-origin" });
      if (!response.ok) throw new Error("HTTP " + response.status);
      render(await response.json());
      setConnection("live", "Live · " + formatTime(lastReport.time));
    } catch (error) {
      setConnection("error", "Not updating: " + error.message);
    } finally {
      setTimeout(poll, POLL_MS);
    }
  }

  window.addEventListener("resize", () => { if (lastReport) drawCharts(lastReport); });
  poll();
})();
