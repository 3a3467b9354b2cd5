
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const steps = data.steps, last = steps.length - 1;
  const $ = (id) => document.getElementById(id);
  const img = $("frame"), slider = $("slider"), counter = $("counter"), move = $("move");
  const scores = $("scores-body"), moves = $("moves"), text = $("text"), playBtn = $("play");
  const speed = $("speed");
  let cur = -1, timer = null;

  slider.max = String(last);
  // the list of decisions: item i is the move leading to position i (item 0 = the start)
  const items = steps.map((s, i) => {
    const li = document.createElement("li");
    const n = document.createElement("span");
    n.className = "n";
    n.textContent = i === 0 ? "" : i + ".";
    li.appendChild(n);
    li.appendChild(document.createTextNode(
      i === 0 ? "start" : data.players[s.actor] + ": " + s.action_name));
    li.dataset.step = String(i);
    li.addEventListener("click", () => { stop(); go(i); });
    moves.appendChild(li);
    return li;
  });

  function fmt(x) { return Number.isInteger(x) ? String(x) : x.toFixed(2); }

  function go(i) {
    i = Math.max(0, Math.min(last, i | 0));
    if (i === cur) return;
    const s = steps[i];
    if (cur >= 0) items[cur].classList.remove("current");
    cur = i;
    items[i].classList.add("current");
    items[i].scrollIntoView({ block: "nearest" });
    img.src = data.frames[s.frame];
    img.alt = "position " + i;
    slider.value = String(i);
    counter.textContent = "position " + i + " / " + last;
    document.body.dataset.step = String(i);
    move.innerHTML = "";
    const line = document.createElement("div");
    if (i === 0) {
      line.textContent = "Start of the game.";
    } else {
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = data.players[s.actor];
      line.append("Decision " + i + ": ", who, ": ");
      const act = document.createElement("span");
      act.id = "action";
      act.textContent = s.action_name;
      line.appendChild(act);
    }
    const next = document.createElement("div");
    next.className = "help";
    next.textContent = s.terminal ? "Game over." : "To move: " + data.players[s.to_move];
    move.append(line, next);
    scores.innerHTML = "";
    s.scores.forEach((sc, p) => {
      const tr = document.createElement("tr");
      if (!s.terminal && p === s.to_move) tr.className = "to-move";
      if (s.terminal && s.places[p] === 1) tr.className = "winner";
      const cells = [data.players[p], fmt(sc), s.terminal ? String(s.places[p]) : ""];
      cells.forEach((c, k) => {
        const td = document.createElement("td");
        td.textContent = c;
        if (k > 0) td.className = "num";
        tr.appendChild(td);
      });
      scores.appendChild(tr);
    });
    if (text) text.textContent = s.text || "";
    $("first").disabled = $("prev").disabled = i === 0;
    $("next").disabled = $("last").disabled = i === last;
    try { history.replaceState(null, "", "#step=" + i); } catch (e) { /* file:// in some browsers */ }
  }

  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    playBtn.textContent = "\u25B6 play";
    document.body.dataset.playing = "false";
  }
  function play() {
    if (timer !== null) { stop(); return; }
    if (cur === last) go(0);
    playBtn.textContent = "\u275A\u275A pause";
    document.body.dataset.playing = "true";
    timer = setInterval(() => { if (cur >= last) stop(); else go(cur + 1); }, 1000 / Number(speed.value));
  }
  img.addEventListener("click", () => img.classList.toggle("full"));  // fit the window, or full size
  speed.addEventListener("change", () => { if (timer !== null) { stop(); play(); } });

  $("first").addEventListener("click", () => { stop(); go(0); });
  $("prev").addEventListener("click", () => { stop(); go(cur - 1); });
  $("next").addEventListener("click", () => { stop(); go(cur + 1); });
  $("last").addEventListener("click", () => { stop(); go(last); });
  playBtn.addEventListener("click", play);
  slider.addEventListener("input", () => { stop(); go(Number(slider.value)); });
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.target;
    if (t && t.tagName === "SELECT") return;
    let handled = true;
    switch (e.key) {
      case "ArrowRight": case "ArrowDown": stop(); go(cur + 1); break;
      case "ArrowLeft": case "ArrowUp": stop(); go(cur - 1); break;
      case "PageDown": stop(); go(cur + 10); break;
      case "PageUp": stop(); go(cur - 10); break;
      case "Home": stop(); go(0); break;
      case "End": stop(); go(last); break;
      case " ": play(); break;
      default: handled = false;
    }
    if (handled) e.preventDefault();
  });

  function fromHash() {
    const m = /step=(\d+)/.exec(location.hash);
    return m ? Number(m[1]) : null;
  }
  window.addEventListener("hashchange", () => { const i = fromHash(); if (i !== null) { stop(); go(i); } });
  go(fromHash() || 0);
  document.body.dataset.ready = "true";
})();
