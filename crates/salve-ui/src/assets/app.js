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
  var CONTROLS = 'a, button, input, select, textarea';

  // What names a control across two renderings of the same page: its kind and target, and
  // which of the controls sharing those it is.
  function signature(el) {
    var form = el.form ? el.form.getAttribute('action') : '';
    return [el.tagName, el.getAttribute('href') || '', el.getAttribute('name') || '',
            el.getAttribute('value') || '', form || ''].join('|');
  }

  function keyed(root) {
    var seen = {};
    var out = [];
    root.querySelectorAll(CONTROLS).forEach(function (el) {
      var sig = signature(el);
      seen[sig] = (seen[sig] || 0) + 1;
      out.push({ key: sig + '#' + seen[sig], el: el });
    });
    return out;
  }

  // The state a refresh must not lose: which control has the focus (and the caret in it), and
  // every field the reader changed but has not submitted.
  function capture(root) {
    var state = { focus: null, caret: null, values: {} };
    keyed(root).forEach(function (item) {
      var el = item.el;
      if (el === document.activeElement) {
        state.focus = item.key;
        if (typeof el.selectionStart === 'number') {
          try { state.caret = [el.selectionStart, el.selectionEnd]; } catch (e) { state.caret = null; }
        }
      }
      if (el.tagName === 'SELECT') {
        var changed = Array.prototype.some.call(el.options, function (o) {
          return o.selected !== o.defaultSelected;
        });
        if (changed) { state.values[item.key] = el.value; }
      } else if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') {
        if (el.type === 'checkbox' || el.type === 'radio') {
          if (el.checked !== el.defaultChecked) { state.values[item.key] = el.checked; }
        } else if (el.value !== el.defaultValue) {
          state.values[item.key] = el.value;
        }
      }
    });
    return state;
  }

  function restore(root, state) {
    keyed(root).forEach(function (item) {
      var el = item.el;
      if (Object.prototype.hasOwnProperty.call(state.values, item.key)) {
        var v = state.values[item.key];
        if (typeof v === 'boolean') { el.checked = v; } else { el.value = v; }
      }
      if (item.key === state.focus) {
        el.focus({ preventScroll: true });
        if (state.caret && typeof el.setSelectionRange === 'function') {
          try { el.setSelectionRange(state.caret[0], state.caret[1]); } catch (e) { /* not text */ }
        }
      }
    });
  }

  function refresh() {
    return fetch(window.location.href, { credentials: 'same-origin', cache: 'no-store' })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById('content');
        if (fresh) {
          var content = document.getElementById('content');
          var state = capture(content);
          content.innerHTML = fresh.innerHTML;
          restore(content, state);
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
