// salve ui: live updates and confirmations. Plain JavaScript, no build step.
(function () {
  'use strict';

  // Forms with data-confirm ask first (restoring or dropping a checkpoint).
  document.addEventListener('submit', function (event) {
    var question = event.target.getAttribute('data-confirm');
    if (question && !window.confirm(question)) {
      event.preventDefault();
    }
  });

  // Pages with data-live poll a small stamp and re-read their content when it moves, so runs
  // recorded by another process (a fix loop in another terminal) appear without a reload.
  var live = document.body.getAttribute('data-live');
  if (!live) {
    return;
  }
  var indicator = document.getElementById('live');
  var last = null;

  function refresh() {
    return fetch(window.location.href, { credentials: 'same-origin', cache: 'no-store' })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById('content');
        if (fresh) {
          document.getElementById('content').innerHTML = fresh.innerHTML;
          document.body.setAttribute('data-updated', String(Date.now()));
        }
      });
  }

  function poll() {
    fetch(live, { credentials: 'same-origin', cache: 'no-store' })
      .then(function (response) { return response.json(); })
      .then(function (stamp) {
        if (indicator) { indicator.hidden = false; }
        var changed = last !== null && stamp.version !== last;
        last = stamp.version;
        return changed ? refresh() : null;
      })
      .catch(function () { if (indicator) { indicator.hidden = true; } })
      .then(function () { window.setTimeout(poll, 1000); });
  }
  poll();
})();
