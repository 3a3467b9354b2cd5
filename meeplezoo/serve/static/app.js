// meeplezoo serve: the page. Plain JavaScript, no build step; every number comes from the JSON API.
"use strict";

const $ = (id) => document.getElementById(id);
let catalogue = null;   // GET /api/games
let game = null;        // the last view of the game (GET /api/games/{id})
let inspection = null;  // the last inspector answer, for the position it was asked at
let narrowed = null;   // {step, actions}: the actions of the place clicked on the picture, when it has several
let busy = false;
let timer = null;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) e.append(c);
  return e;
}

async function api(method, path, body) {
  const opts = {method, headers: {}};
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || `${r.status} ${r.statusText}`);
  return data;
}

function showError(message) {
  $("error").textContent = message || "";
  document.body.dataset.error = message || "";
}

// -- the new-game form ------------------------------------------------------------------------
function currentGameInfo() {
  return catalogue.games.find((g) => g.id === $("game").value);
}

function seatRow(i, value) {
  const sel = el("select", {"data-seat": String(i), class: "seat-kind"});
  for (const spec of ["human", ...catalogue.agents, "other..."]) sel.append(el("option", {value: spec}, spec));
  const custom = el("input", {class: "seat-spec", placeholder: "agent spec, e.g. net:runs/x/best.zip"});
  custom.hidden = true;
  sel.value = value;
  sel.addEventListener("change", () => { custom.hidden = sel.value !== "other..."; });
  return el("div", {class: "seat-row"}, el("span", {}, `Seat ${i}`), sel, custom);
}

function fillSeats() {
  const n = Number($("players").value);
  const box = $("seats");
  box.querySelectorAll(".seat-row").forEach((r) => r.remove());
  for (let i = 0; i < n; i++) box.append(seatRow(i, i === 0 ? "human" : "heuristic"));
}

function fillGameForm() {
  const info = currentGameInfo();
  const players = $("players");
  players.innerHTML = "";
  for (let n = info.min_players; n <= info.max_players; n++) players.append(el("option", {value: String(n)}, String(n)));
  players.value = String(info.default_players);
  const box = $("options");
  box.innerHTML = "";
  for (const o of info.options) {
    let input;
    if (o.kind === "choice") {
      input = el("select");
      for (const c of o.choices) input.append(el("option", {value: JSON.stringify(c)}, String(c)));
      input.value = JSON.stringify(o.default);
    } else if (o.kind === "bool") {
      input = el("input", {type: "checkbox", checked: o.default});
    } else {
      input = el("input", {type: "number", value: String(o.default)});
    }
    input.dataset.option = o.name;
    input.dataset.kind = o.kind;
    input.dataset.default = JSON.stringify(o.default);
    box.append(el("label", {title: o.doc}, `${o.name} `, input));
  }
  fillSeats();
}

function chosenOptions() {
  const out = {};
  for (const input of $("options").querySelectorAll("[data-option]")) {
    let v;
    if (input.dataset.kind === "bool") v = input.checked;
    else if (input.dataset.kind === "int") v = Number(input.value);
    else v = JSON.parse(input.value);
    if (JSON.stringify(v) !== input.dataset.default) out[input.dataset.option] = v;
  }
  return out;
}

function chosenSeats() {
  return [...$("seats").querySelectorAll(".seat-row")].map((row) => {
    const kind = row.querySelector(".seat-kind").value;
    return kind === "other..." ? row.querySelector(".seat-spec").value.trim() : kind;
  });
}

async function startGame(body) {
  showError("");
  try {
    show(await api("POST", "/api/games", body));
    inspection = null;
    $("inspector").innerHTML = "";
  } catch (e) {
    showError(e.message);
  }
  schedule();  // an agent in the first seat to move starts the game
}

// -- the game -------------------------------------------------------------------------------------
function viewerParam() {
  const v = $("viewer").value;
  return v === "auto" ? {} : {seat: Number(v)};
}

async function act(path, body = {}) {
  if (!game || busy) return;
  busy = true;
  document.body.dataset.busy = "true";
  showError("");
  try {
    show(await api("POST", `/api/games/${game.id}/${path}`, {...body, ...viewerParam()}));
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
    document.body.dataset.busy = "false";
    schedule();
  }
}

function seatLabel(i) {
  const s = game.seats[i];
  return s.human ? `Seat ${i} (human)` : `Seat ${i} (${s.spec})`;
}

function show(view) {
  game = view;
  document.body.dataset.step = String(view.step);
  document.body.dataset.last = String(view.last);
  document.body.dataset.terminal = String(view.terminal);
  document.body.dataset.humanToMove = String(view.human_to_move);
  document.body.dataset.viewer = String(view.viewer);
  $("play").hidden = false;
  $("side").hidden = false;
  $("title").textContent = `${view.display_name}, ${view.num_players} players` +
    (Object.keys(view.config).length ? ` (${Object.entries(view.config).map(([k, v]) => `${k}=${v}`).join(", ")})` : "");
  $("analysis-banner").hidden = !view.open_view;
  $("open-view").checked = view.open_view;
  $("open-view").parentElement.hidden = !view.hidden_information;

  // who sees: the viewer menu
  const vs = $("viewer");
  const keep = vs.value || "auto";
  vs.innerHTML = "";
  vs.append(el("option", {value: "auto"}, "the human to move"));
  for (let i = 0; i < view.num_players; i++) vs.append(el("option", {value: String(i)}, seatLabel(i)));
  vs.value = [...vs.options].some((o) => o.value === keep) ? keep : "auto";

  // status
  let status;
  if (view.terminal) {
    const r = view.result;
    status = "Game over. Scores: " + r.scores.map((s, i) => `${seatLabel(i)} ${s}`).join(", ") +
      ". Winner: " + r.winners.map(seatLabel).join(" and ") + (r.truncated ? " (cut off by the safety limit)" : "");
  } else if (view.human_to_move) {
    status = `${seatLabel(view.to_move)} to move` + (view.to_move === view.viewer ? ": your move" : "");
  } else {
    status = `${seatLabel(view.to_move)} to move`;
  }
  if (view.step < view.last) status += ` (looking at step ${view.step} of ${view.last}; a move here replaces what followed)`;
  $("status").textContent = status;
  $("counter").textContent = `step ${view.step} / ${view.last}`;

  // the picture (reloaded only when it changes)
  const board = $("board");
  if (board.dataset.src !== view.picture) {
    board.dataset.src = view.picture;
    document.body.dataset.pictureLoaded = "false";
    board.onload = () => { document.body.dataset.pictureLoaded = "true"; placeTargets(); };
    board.src = view.picture;
  }
  $("text").textContent = view.text;

  placeTargets();

  if (narrowed && (narrowed.step !== view.step || narrowed.last !== view.last)) narrowed = null;
  showActions();

  // history
  const hist = $("history");
  hist.innerHTML = "";
  hist.append(el("li", {"data-step": "0", class: view.step === 0 ? "current" : ""}, "start"));
  for (const h of view.history) {
    const li = el("li", {"data-step": String(h.step + 1), class: view.step === h.step + 1 ? "current" : ""},
      `${seatLabel(h.player)}: ${h.name}`);
    hist.append(li);
  }
  for (const li of hist.children) li.addEventListener("click", () => act("goto", {step: Number(li.dataset.step)}));
  const cur = hist.querySelector("li.current");
  if (cur) cur.scrollIntoView({block: "nearest"});

  // saving
  const saveR = $("save-replay"), saveS = $("save-state");
  saveR.hidden = !view.can_save_replay;
  saveR.href = `/api/games/${view.id}/replay.json`;
  saveS.hidden = !view.can_save_state;
  saveS.href = `/api/games/${view.id}/state.json`;

  $("step-agent").disabled = view.terminal || view.human_to_move;
  $("undo").disabled = view.step === 0;
  if (inspection && inspection.step !== view.step) { inspection = null; $("inspector").innerHTML = ""; }
  highlight();
  document.body.dataset.ready = "true";
}

function showActions() {
  // the legal actions, as buttons (only those of the place clicked on the picture, when one is chosen)
  const view = game;
  const box = $("actions");
  box.innerHTML = "";
  const clickable = view.human_to_move && (view.to_move === view.viewer || view.open_view || !view.hidden_information);
  const only = narrowed ? new Set(narrowed.actions) : null;
  document.body.dataset.narrowed = only ? narrowed.actions.join(",") : "";
  if (only) {
    const all = el("button", {id: "all-actions", class: "all-actions", title: "every legal action again"},
      `all ${view.legal.length} actions`);
    all.addEventListener("click", () => { narrowed = null; showActions(); placeTargets(); });
    box.append(all);
  }
  for (const a of view.legal) {
    if (only && !only.has(a.action)) continue;
    const b = el("button", {"data-action": String(a.action), title: `action ${a.action}`}, a.name);
    b.disabled = !clickable;
    b.addEventListener("click", () => act("play", {action: a.action, step: game.step}));
    box.append(b);
  }
  if (!view.terminal && !view.human_to_move) box.append(el("span", {class: "hint"}, "the agent is to move"));
  highlight();
}

function clickRegion(r) {
  // one action at the place: play it; several (a tile's orientations, a disc's values): list only those
  if (r.actions.length === 1) {
    act("play", {action: r.actions[0], step: game.step});
    return;
  }
  narrowed = {step: game.step, last: game.last, actions: r.actions};
  showActions();
  placeTargets();
}

function placeTargets() {
  // clickable places on the picture, where the game's renderer says an action points (scaled with the picture)
  const box = $("targets"), board = $("board");
  box.innerHTML = "";
  if (!game || !board.naturalWidth || board.dataset.src !== game.picture) return;
  const k = board.clientWidth / board.naturalWidth;
  const clickable = game.human_to_move && (game.to_move === game.viewer || game.open_view || !game.hidden_information);
  if (!clickable) return;
  for (const r of game.regions) {
    const [x0, y0, x1, y1] = r.box;
    const title = r.names.length === 1 ? r.names[0] : `${r.names.length} actions here: ${r.names.join("; ")}`;
    const b = el("button", {"data-actions": r.actions.join(","), title, "aria-label": title});
    if (r.actions.length === 1) b.dataset.action = String(r.actions[0]);
    const chosen = narrowed && narrowed.actions.join(",") === b.dataset.actions;
    b.classList.toggle("chosen", !!chosen);
    Object.assign(b.style, {left: `${x0 * k}px`, top: `${y0 * k}px`, width: `${(x1 - x0) * k}px`,
      height: `${(y1 - y0) * k}px`});
    b.addEventListener("click", () => clickRegion(r));
    box.append(b);
  }
  highlight();
}

function schedule() {
  clearTimeout(timer);
  if (!game || game.terminal || game.human_to_move || game.step !== game.last || !$("auto").checked) return;
  if (document.body.dataset.error) return;  // an agent that failed is not asked again on its own
  timer = setTimeout(() => act("advance", {step: game.step}), Number($("pace").value));
}

// -- the inspector --------------------------------------------------------------------------------
function bar(x, cls = "") {
  if (x === undefined || x === null) return el("td", {}, "");
  const b = el("div", {class: "bar " + cls});
  const fill = el("span");
  if (cls === "value") {
    fill.style.width = `${Math.min(1, Math.abs(x)) * 50}%`;
    fill.style.left = x >= 0 ? "50%" : `${50 - Math.min(1, Math.abs(x)) * 50}%`;
    if (x < 0) fill.className = "neg";
  } else {
    fill.style.width = `${Math.max(0, Math.min(1, x)) * 100}%`;
  }
  b.append(fill, el("em", {}, cls === "value" ? x.toFixed(2) : `${(x * 100).toFixed(1)}%`));
  return el("td", {}, b);
}

function renderInspection(r) {
  const box = $("inspector");
  box.innerHTML = "";
  const head = `${r.spec} at step ${r.step} (${seatLabel(r.player)} to move)` +
    (r.simulations !== null ? `: ${r.simulations} simulations in ${r.seconds.toFixed(2)} s` : "");
  box.append(el("p", {class: "hint"}, head));
  if (r.seat_values) {
    box.append(el("div", {class: "seat-values"}, "Value per seat: " + r.seat_values.map(
      (v, i) => `${seatLabel(i)} ${v === null ? "n/a" : v.toFixed(3)}`).join(", ")));
  }
  const cols = [["prior", "prior"], ["share", "visits"], ["value", "value"], ["score", "heuristic score"]]
    .filter(([k]) => r.actions.some((a) => a[k] !== undefined));
  const table = el("table", {id: "inspector-table"});
  const tr = el("tr", {}, el("th", {}, "action"));
  for (const [, label] of cols) tr.append(el("th", {}, label));
  table.append(tr);
  const rows = [...r.actions].sort((a, b) => (b.share ?? b.prior ?? 0) - (a.share ?? a.prior ?? 0));
  for (const a of rows) {
    const marks = (a.action === r.choice ? " \u2605" : "") + (a.action === r.heuristic_choice ? " \u25c6" : "");
    const row = el("tr", {"data-action": String(a.action), class: a.action === r.choice ? "agent-choice" : ""},
      el("td", {class: "name", title: a.name}, el("span", {class: "mark"}, marks.trim() + (marks ? " " : "")), a.name));
    for (const [k] of cols) {
      if (k === "score") row.append(el("td", {}, a.score === undefined || a.score === null ? "" : a.score.toFixed(2)));
      else row.append(bar(a[k], k === "value" ? "value" : ""));
    }
    table.append(row);
  }
  box.append(table);
  box.append(el("p", {class: "hint"}, "\u2605 the agent's choice, \u25c6 the heuristic's choice"));
}

function highlight() {
  for (const b of document.querySelectorAll("#actions button[data-action]")) {
    b.classList.toggle("hl-agent", !!inspection && Number(b.dataset.action) === inspection.choice);
  }
  for (const b of document.querySelectorAll("#targets button")) {
    const acts = b.dataset.actions.split(",").map(Number);
    b.classList.toggle("hl-agent", !!inspection && acts.includes(inspection.choice));
  }
}

async function inspect() {
  if (!game || busy) return;
  busy = true;
  document.body.dataset.inspecting = "true";
  showError("");
  try {
    inspection = await api("POST", `/api/games/${game.id}/inspect`,
      {spec: $("inspect-spec").value.trim(), step: game.step, ...viewerParam()});
    renderInspection(inspection);
    highlight();
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
    document.body.dataset.inspecting = "false";
  }
}

// -- wiring ---------------------------------------------------------------------------------------
async function init() {
  catalogue = await api("GET", "/api/games");
  for (const g of catalogue.games) $("game").append(el("option", {value: g.id}, g.name));
  for (const a of catalogue.agents) $("agent-examples").append(el("option", {value: a}));
  $("game").addEventListener("change", fillGameForm);
  $("players").addEventListener("change", fillSeats);
  fillGameForm();
  $("new-game").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const seed = $("seed").value === "" ? null : Number($("seed").value);
    startGame({game: $("game").value, num_players: Number($("players").value), options: chosenOptions(),
      seed, seats: chosenSeats()});
  });
  $("load-file").addEventListener("change", async () => {
    const f = $("load-file").files[0];
    if (!f) return;
    let doc;
    try { doc = JSON.parse(await f.text()); } catch (e) { showError(`${f.name} is not JSON: ${e.message}`); return; }
    const n = doc.config && doc.config.num_players ? doc.config.num_players : null;
    let seats = chosenSeats();
    if (n && seats.length !== n) seats = Array.from({length: n}, (_, i) => (i === 0 ? "human" : "heuristic"));
    startGame("actions" in doc ? {replay: doc, seats} : {state: doc, seats});
  });
  $("undo").addEventListener("click", () => act("undo"));
  $("first").addEventListener("click", () => act("goto", {step: 0}));
  $("prev").addEventListener("click", () => act("goto", {step: Math.max(0, game.step - 1)}));
  $("next").addEventListener("click", () => act("goto", {step: Math.min(game.last, game.step + 1)}));
  $("latest").addEventListener("click", () => act("goto", {step: game.last}));
  $("step-agent").addEventListener("click", () => act("advance", {step: game.step}));
  $("auto").addEventListener("change", schedule);
  $("pace").addEventListener("change", schedule);
  $("viewer").addEventListener("change", () => act("goto", {step: game.step}));
  $("open-view").addEventListener("change", () => act("open", {open: $("open-view").checked}));
  $("inspect").addEventListener("click", inspect);
  window.addEventListener("resize", placeTargets);
  document.addEventListener("keydown", (ev) => {
    if (!game || ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT") return;
    if (ev.key === "ArrowLeft") act("goto", {step: Math.max(0, game.step - 1)});
    else if (ev.key === "ArrowRight") act("goto", {step: Math.min(game.last, game.step + 1)});
  });
  document.body.dataset.ready = "true";
}

init().catch((e) => showError(`could not load the game list: ${e.message}`));
