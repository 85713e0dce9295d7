// The replay viewer: steps through a game's decisions without reloading the page.
//
// The page (games.py, game.html) renders one step on the server, with links that work without
// JavaScript: the drawn table (an <img> of the step's SVG, drawn on the server by arena/tables)
// and the step as data. This script fetches every step of the chosen seat from the API once,
// then steps forward and back (buttons, arrow keys, Home/End), plays (space, at a chosen speed),
// jumps (the slider, the step list) and switches seat: it points the <img> at the step's SVG
// (preloading the neighbours) and draws the data with the same markup as templates/_table.html.
// Everything it shows came from a bot or an author at some point: it is set as text, never as HTML.
(() => {
  "use strict";
  const root = document.getElementById("replay");
  if (!root) return;
  const config = JSON.parse(root.dataset.config);
  const names = config.names;
  const seatFields = new Set(config.seat_fields);
  const meta = new Set(config.meta);
  const $ = (id) => document.getElementById(id);
  const replays = {}; // seat -> the API's answer
  let seat = root.dataset.seat; // "all" or a seat number, as text
  let at = Number(root.dataset.step);
  let replay = null;

  // -- building markup (as _table.html does) ------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, val] of Object.entries(attrs || {})) {
      if (key === "class") node.className = val;
      else node.setAttribute(key, val);
    }
    for (const child of children) {
      if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }
  const label = (key) => key.replaceAll("_", " ");
  const isSeat = (s) => Number.isInteger(s) && s >= 0 && s < names.length;

  function seatRef(s) {
    if (s === -1) return "nobody"; // a seat field with no seat in it (no inspector yet, nobody to act)
    return isSeat(s) ? el("span", { class: "seat-ref", "data-seat-ref": s }, `${s} · ${names[s]}`) : String(s);
  }

  function cards(list) {
    return el("span", { class: "cards" }, ...list.map((c) =>
      el("span", { class: c === "unknown" ? "card back" : "card", "data-card": c }, c)));
  }

  function value(v, key) {
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (v === null || v === undefined) return "–";
    if (typeof v === "number") return seatFields.has(key) ? seatRef(v) : String(v);
    if (typeof v === "string") return v;
    if (!Array.isArray(v)) {
      const dl = el("dl", { class: "sub" });
      for (const [k, x] of Object.entries(v)) dl.append(el("dt", {}, label(k)), el("dd", {}, value(x, k)));
      return dl;
    }
    if (v.length === 0) return el("span", { class: "none" }, "–");
    if (v.every((x) => typeof x === "string")) return cards(v);
    if (v[0] !== null && typeof v[0] === "object" && !Array.isArray(v[0])) return rows(v);
    const span = document.createDocumentFragment();
    v.forEach((x, i) => { span.append(value(x, key)); if (i < v.length - 1) span.append(", "); });
    return span;
  }

  function rows(list) {
    const keys = Object.keys(list[0]);
    return el("table", { class: "sub" },
      el("thead", {}, el("tr", {}, ...keys.map((k) => el("th", {}, label(k))))),
      el("tbody", {}, ...list.map((item) => el("tr", {}, ...keys.map((k) => el("td", {}, value(item[k], k)))))));
  }

  function fields(view, keys) {
    const dl = el("dl", { class: "fields" });
    for (const k of keys) dl.append(el("dt", {}, label(k)), el("dd", { "data-field": k }, value(view[k], k)));
    return dl;
  }

  function players(list) {
    if (!list || list.length === 0) return null;
    const keys = Object.keys(list[0]);
    return el("table", { class: "players" },
      el("thead", {}, el("tr", {}, el("th", {}, "seat"), ...keys.map((k) => el("th", {}, label(k))))),
      el("tbody", {}, ...list.map((p, s) => el("tr", { "data-player": s }, el("th", {}, seatRef(s)),
        ...keys.map((k) => el("td", { "data-field": k }, value(p[k], k)))))));
  }

  // The action in words as the viewed seat may know it (the step's "said", arena/replays.py).
  function stepHead(step) {
    const p = el("p", { class: "step-head", id: "step-head" });
    if (step.end) {
      p.append(el("strong", {}, "After the game"));
    } else if (step.pending) {
      p.append(el("strong", {}, `Step ${step.step}`), ": ", seatRef(step.seat), " is deciding now");
    } else {
      p.append(el("strong", {}, `Step ${step.step}`), ": ", seatRef(step.seat));
      if (step.said !== null && step.said !== undefined) {
        p.append(" ", el("span", { class: "action", id: "said" }, step.said), " ",
          el("span", { class: "muted" }, `in ${step.ms.toFixed(1)} ms`));
        if (step.fallback) p.append(" ", el("span", { class: "badge bad" }, "fallback"));
        if (step.failure) p.append(" ", el("span", { class: "badge bad" }, `failed: ${step.failure}`));
      } else {
        p.append(" decides ", el("span", { class: "muted" }, "(hidden until the game is over)"));
      }
    }
    if (step.sent) p.append(" ", el("span", { class: "badge sent" }, "the view it was sent"));
    return p;
  }

  // The bot's debug text for this decision: only in a replay of its owner's (as text, never HTML).
  function stepDebug(step) {
    if (!step.debug) return null;
    return el("section", { class: "debug", id: "step-debug" }, el("h3", {}, "Its debug output"),
      el("pre", { class: "debug-text" }, step.debug));
  }

  // The fields in the order shown (games.ordered), and for the full table the fields every seat
  // sees alike and each seat's own (games.layout).
  function ordered(keys) {
    const first = config.first.filter((k) => keys.includes(k));
    return first.concat(keys.filter((k) => !first.includes(k) && !meta.has(k)));
  }

  function layout(step) {
    if (step.view) return { fields: ordered(Object.keys(step.view)), players: step.view.players };
    const views = step.views;
    const same = (k) => views.every((v) => JSON.stringify(v[k]) === JSON.stringify(views[0][k]));
    const keys = ordered(Object.keys(views[0]));
    const shared = keys.filter(same);
    const own = keys.filter((k) => !shared.includes(k));
    return same("players") ? { fields: shared, own, players: views[0].players }
      : { fields: shared, own: own.concat(["players"]), players: null };
  }

  function table(step) {
    const parts = [];
    const lay = layout(step);
    if (step.views) {
      parts.push(el("section", { class: "view shared" }, el("h3", {}, "The table"), fields(step.views[0], lay.fields)));
      parts.push(el("div", { class: "seats-grid" }, ...step.views.map((view, s) =>
        el("section", { class: "view", "data-seat": s }, el("h3", {}, seatRef(s)), fields(view, lay.own)))));
    } else {
      const section = el("section", { class: "view", "data-seat": seat },
        el("h3", {}, "As ", seatRef(Number(seat)), " saw it"), fields(step.view, lay.fields));
      if (step.legal && step.legal.length) {
        const p = el("p", { class: "legal" }, "Its legal actions: ");
        for (const a of step.legal) p.append(el("code", {}, a), " ");
        section.append(p);
      }
      parts.push(section);
    }
    parts.push(players(lay.players));
    parts.push(el("h3", {}, "Events"));
    const events = el("ol", { class: "events" });
    for (const line of step.events) events.append(el("li", {}, line));
    if (!step.events.length) events.append(el("li", { class: "muted" }, "none"));
    parts.push(events);
    return parts;
  }

  function stepLabel(step) {
    if (step.end) return "end of the game";
    if (step.pending) return `${step.step} · seat ${step.seat} is deciding`;
    if (step.said === null || step.said === undefined) return `${step.step} · seat ${step.seat} decides`;
    return `${step.step} · seat ${step.seat}: ${step.said} · ${step.ms.toFixed(1)} ms${step.fallback ? " [fallback]" : ""}`
      + (step.debug ? " · debug" : "");
  }

  // -- state and navigation -------------------------------------------------------------------
  const link = (s, k) => `?seat=${encodeURIComponent(s)}&step=${k}`;
  const last = () => replay.steps.length - 1;

  function drawSteps() {
    const list = $("steps");
    list.replaceChildren(...replay.steps.map((step) =>
      el("li", { "data-step": step.step }, el("a", { href: link(seat, step.step) }, stepLabel(step)))));
  }

  // The drawn table: the step's SVG, its neighbours fetched ahead so stepping shows them at once.
  const picture = (s, k) => `${config.svg}?seat=${encodeURIComponent(s)}&step=${k}`;
  const preloaded = new Map(); // url -> Image, the last few
  const narrow = window.matchMedia("(max-width: 600px)"); // as the page's <source>
  function preload(k) {
    if (!config.svg || k < 0 || k > last()) return;
    const url = picture(seat, k) + (narrow.matches ? "&narrow=1" : "");
    if (preloaded.has(url)) return;
    const image = new Image();
    image.src = url;
    preloaded.set(url, image);
    if (preloaded.size > 12) preloaded.delete(preloaded.keys().next().value);
  }

  function drawPicture() {
    const img = $("picture");
    if (!img || !config.svg) return;
    const url = picture(seat, at);
    if (img.getAttribute("src") !== url) img.setAttribute("src", url);
    $("picture-narrow").srcset = `${url}&narrow=1`; // a phone's width: the seats in one column
    img.alt = `the table at step ${at}` + (seat === "all" ? ", every seat's cards" : `, as seat ${seat} saw it`);
    $("download").href = `${url}&download=1`;
    preload(at + 1);
    preload(at - 1);
    if (timer) preload(at + 2);
  }

  function draw() {
    const step = replay.steps[at];
    $("step-top").replaceChildren(...[stepHead(step), stepDebug(step)].filter((part) => part !== null));
    drawPicture();
    const box = $("table");
    box.replaceChildren(...table(step).filter((part) => part !== null));
    box.dataset.seat = seat;
    box.dataset.step = at;
    root.dataset.seat = seat;
    root.dataset.step = at;
    $("at").textContent = at;
    $("last").textContent = last();
    const slider = $("slider");
    slider.max = last();
    slider.value = at;
    $("first").href = link(seat, 0);
    $("prev").href = link(seat, Math.max(at - 1, 0));
    $("next").href = link(seat, Math.min(at + 1, last()));
    $("end").href = link(seat, last());
    for (const item of $("steps").children) {
      const current = Number(item.dataset.step) === at;
      item.classList.toggle("current", current);
      if (current) item.scrollIntoView({ block: "nearest" });
    }
    for (const choice of document.querySelectorAll("[data-seat-choice]")) {
      const current = choice.dataset.seatChoice === seat;
      choice.classList.toggle("current", current);
      if (current) choice.setAttribute("aria-current", "true"); else choice.removeAttribute("aria-current");
      choice.href = link(choice.dataset.seatChoice, at);
    }
    document.querySelector("#controls input[name=seat]").value = seat;
    history.replaceState(null, "", link(seat, at));
  }

  function go(k) {
    if (!replay) return false;
    at = Math.min(Math.max(k, 0), last());
    draw();
    return true;
  }

  // Play: a step every 1/speed seconds, until the last step (or a pause).
  let timer = null;
  function pause() {
    if (timer) clearInterval(timer);
    timer = null;
    $("play").textContent = "▶";
    $("play").setAttribute("aria-pressed", "false");
  }
  function play() {
    if (!replay) return;
    if (at >= last()) go(0);
    pause();
    $("play").textContent = "⏸";
    $("play").setAttribute("aria-pressed", "true");
    timer = setInterval(() => {
      if (at >= last() && !config.live) pause();
      else if (at < last()) go(at + 1);
    }, 1000 / Number($("speed").value));
  }
  const toggle = () => (timer ? pause() : play());

  async function fetchReplay(s) {
    const reply = await fetch(`${config.api}?seat=${encodeURIComponent(s)}`,
      { credentials: "same-origin", headers: { accept: "application/json" } });
    if (!reply.ok) throw new Error((await reply.json()).detail || reply.statusText);
    return reply.json();
  }

  async function show(s) {
    try {
      replays[s] = replays[s] || await fetchReplay(s);
    } catch (error) {
      $("step-top").replaceChildren(el("p", { class: "error" }, `Cannot load that view: ${error.message}`));
      return;
    }
    seat = s;
    replay = replays[s];
    preloaded.clear();
    at = Math.min(at, last());
    drawSteps();
    draw();
  }

  function clicked(event, action) {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    if (action()) event.preventDefault();
  }

  $("first").addEventListener("click", (e) => clicked(e, () => go(0)));
  $("prev").addEventListener("click", (e) => clicked(e, () => go(at - 1)));
  $("next").addEventListener("click", (e) => clicked(e, () => go(at + 1)));
  $("end").addEventListener("click", (e) => clicked(e, () => go(last())));
  $("slider").addEventListener("input", (e) => { pause(); go(Number(e.target.value)); });
  $("go").hidden = true;
  $("play").hidden = false;
  $("speed-label").hidden = false;
  $("play").addEventListener("click", toggle);
  $("speed").addEventListener("change", () => { if (timer) play(); });
  $("controls").addEventListener("submit", (e) => { if (replay) e.preventDefault(); });
  $("steps").addEventListener("click", (e) => {
    const item = e.target.closest("li[data-step]");
    if (item) clicked(e, () => go(Number(item.dataset.step)));
  });
  for (const choice of document.querySelectorAll("[data-seat-choice]")) {
    choice.addEventListener("click", (e) => clicked(e, () => {
      if (!replay) return false;
      show(choice.dataset.seatChoice);
      return true;
    }));
  }
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const target = e.target;
    if (target.closest && target.closest("input, textarea, select")) return; // the slider has its own keys
    if (e.key === " " && !(target.closest && target.closest("button, summary"))) { // a focused button's space is its own
      toggle();
      e.preventDefault();
      return;
    }
    const moves = { ArrowLeft: () => at - 1, ArrowRight: () => at + 1, Home: () => 0, End: () => last() };
    if (moves[e.key]) pause();
    if (moves[e.key] && go(moves[e.key]())) e.preventDefault();
  });

  // A game being played: its last step is asked for every 1.5 s (one step: small), and on a new
  // decision the whole replay, followed if the viewer is at the last step (the picture too); when
  // the game ends the page is loaded again (with its result).
  let polling = false;
  async function poll() {
    if (polling) return;
    polling = true;
    try {
      await pollOnce();
    } finally {
      polling = false;
    }
  }

  async function pollOnce() {
    let fresh;
    try {
      const reply = await fetch(`${config.api}?seat=${encodeURIComponent(seat)}&step=1000000000`,
        { credentials: "same-origin", headers: { accept: "application/json" } });
      if (!reply.ok) return;
      const tip = await reply.json();
      if (tip.over) {
        location.reload();
        return;
      }
      if (tip.decisions === replay.decisions) return;
      fresh = await fetchReplay(seat);
    } catch (error) {
      return;
    }
    const following = at === last();
    replays[seat] = replay = fresh;
    drawSteps();
    const count = $("decisions"); // shown to the owners of the game's bots only, before it is public
    if (count) count.textContent = fresh.decisions;
    go(following ? last() : at);
  }

  show(seat).then(() => {
    root.dataset.ready = "true";
    if (config.live) setInterval(poll, 1500);
  });
})();
