// netplatform console: the only script, and an optional one (every page works without it).
// The overview can refresh itself in place: an opt-in checkbox (moving content is not forced on
// anyone, WCAG 2.2.2), its state in the URL (?refresh=<seconds>) so that it can be linked.
"use strict";

(function () {
  const bar = document.getElementById("refresh");
  const live = document.getElementById("live");
  if (!bar || !live) return;
  const seconds = Number(bar.dataset.refresh) || Number(bar.dataset.refreshDefault) || 30;
  const stamp = document.getElementById("refreshed");
  let timer = 0;

  const box = document.createElement("input");
  box.type = "checkbox";
  box.id = "auto-refresh";
  box.checked = Number(bar.dataset.refresh) > 0;
  const label = document.createElement("label");
  label.htmlFor = box.id;
  label.className = "inline";
  label.textContent = "Refresh every " + seconds + " s";
  bar.prepend(box, " ", label, " ");

  function linkTo(on) {
    const url = new URL(window.location.href);
    if (on) url.searchParams.set("refresh", String(seconds));
    else url.searchParams.delete("refresh");
    window.history.replaceState(null, "", url.pathname + url.search + url.hash);
  }

  function stop(why) {
    window.clearTimeout(timer);
    box.checked = false;
    linkTo(false);
    stamp.textContent = why;
  }

  async function tick() {
    // Not while the tab is hidden, nor under a keyboard user's focus (the content is replaced).
    if (document.hidden || live.contains(document.activeElement)) return schedule();
    let answer;
    try {
      answer = await fetch(window.location.href, { credentials: "same-origin", headers: { Accept: "text/html" } });
    } catch (error) {
      return schedule();  // the console itself did not answer: try again next time
    }
    if (answer.redirected || !answer.ok) {
      return stop(answer.redirected ? "Signed out: refresh stopped." : "Refresh stopped: the console answered " + answer.status + ".");
    }
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    const fresh = page.getElementById("live");
    const freshStamp = page.getElementById("refreshed");
    if (!box.checked || !fresh) return;
    live.replaceChildren(...fresh.childNodes);
    if (freshStamp) stamp.textContent = freshStamp.textContent;
    schedule();
  }

  function schedule() {
    window.clearTimeout(timer);
    if (box.checked) timer = window.setTimeout(tick, seconds * 1000);
  }

  box.addEventListener("change", function () {
    linkTo(box.checked);
    schedule();
  });
  schedule();
})();
