// Stallscope timeline: lanes per thread, lock waits coloured by lock, holders linked to waiters,
// zoom (wheel), pan (drag), thread filter, and a click that lists every thread's stack at that moment.
// Every recorded string is inserted with textContent or drawn on the canvas, never parsed as HTML.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('stallscope-data').textContent);
  var PALETTE = ['#e53935', '#1e88e5', '#8e24aa', '#00897b', '#f4511e', '#3949ab', '#c0ca33', '#6d4c41', '#d81b60', '#00acc1', '#5e35b1', '#7cb342'];
  var STATE_COLOR = ['#43a047', '#b0bec5', '#e53935', '#ffb74d', '#cfd8dc', '#7e57c2', '#9e9e9e'];
  var STATE_NAME = ['runnable', 'sleeping', 'blocked', 'parked', 'waiting', 'native', 'unknown'];
  var IO_COLOR = '#ff6f00';
  var LANE = 20, NAME_W = 300, AXIS_H = 26, FONT = '12px system-ui, sans-serif';
  var lanesEl = document.getElementById('lanes');
  var canvas = document.getElementById('timeline');
  var ctx = canvas.getContext('2d');
  var details = document.getElementById('details');
  var status = document.getElementById('status');
  var view = { from: 0, to: Math.max(1, D.durationMs) };
  var lanes = D.threads.slice();
  var laneIndex = {};
  var selected = null;
  // Agent spans by thread, so drawing a lane looks at its own spans only.
  var spansOf = {};
  D.spans.forEach(function (sp) { (spansOf[sp.th] = spansOf[sp.th] || []).push(sp); });
  var width = 800;

  function lockColor(i) { return PALETTE[i % PALETTE.length]; }

  function buildLegend() {
    var legend = document.getElementById('legend');
    D.locks.forEach(function (l, i) {
      var item = document.createElement('span');
      var sw = document.createElement('span');
      sw.className = 'sw';
      sw.style.background = lockColor(i);
      item.appendChild(sw);
      item.appendChild(document.createTextNode(l.label));
      legend.appendChild(item);
    });
  }

  function applyFilter(text) {
    var re = null;
    if (text) {
      try { re = new RegExp(text, 'i'); } catch (e) { re = null; }
    }
    lanes = D.threads.filter(function (t) {
      if (!text) return true;
      return re ? re.test(t.name) : t.name.toLowerCase().indexOf(text.toLowerCase()) >= 0;
    });
    laneIndex = {};
    lanes.forEach(function (t, i) { laneIndex[t.id] = i; });
    layout();
  }

  function layout() {
    var dpr = window.devicePixelRatio || 1;
    width = Math.max(400, lanesEl.clientWidth || 800);
    var height = AXIS_H + lanes.length * LANE + 4;
    canvas.width = width * dpr;
    canvas.height = height * dpr;
    canvas.style.width = width + 'px';
    canvas.style.height = height + 'px';
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    draw();
  }

  function px(t) { return NAME_W + (t - view.from) / (view.to - view.from) * (width - NAME_W); }
  function timeAt(x) { return view.from + (x - NAME_W) / (width - NAME_W) * (view.to - view.from); }

  function firstAtOrAfter(arr, t) {
    var lo = 0, hi = arr.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (arr[mid] < t) lo = mid + 1; else hi = mid; }
    return lo;
  }

  function niceStep(span) {
    var raw = span / 8, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }

  function fmt(ms) { return ms >= 10000 ? (ms / 1000).toFixed(1) + ' s' : ms >= 1000 ? (ms / 1000).toFixed(2) + ' s' : ms.toFixed(ms < 10 ? 2 : 0) + ' ms'; }

  function draw() {
    ctx.clearRect(0, 0, width, canvas.height);
    ctx.font = FONT;
    ctx.textBaseline = 'middle';
    // Axis
    var step = niceStep(view.to - view.from);
    ctx.fillStyle = '#455a64';
    ctx.strokeStyle = '#eceff1';
    for (var t = Math.ceil(view.from / step) * step; t <= view.to; t += step) {
      var x = px(t);
      ctx.beginPath(); ctx.moveTo(x, AXIS_H - 4); ctx.lineTo(x, AXIS_H + lanes.length * LANE); ctx.stroke();
      ctx.fillText('+' + fmt(t), x + 2, AXIS_H / 2);
    }
    var samplesDrawn = 0, spansDrawn = 0, namesClipped = 0;
    lanes.forEach(function (th, i) {
      var y = AXIS_H + i * LANE;
      if (i % 2) { ctx.fillStyle = '#f5f7f8'; ctx.fillRect(0, y, width, LANE); }
      ctx.save();
      ctx.beginPath(); ctx.rect(0, y, NAME_W - 6, LANE); ctx.clip();
      ctx.fillStyle = th.role === 'other' ? '#37474f' : '#0d47a1';
      // The lane label: the name, cut in the middle by the analysis so neighbours stay apart; hover shows it whole.
      var label = th.lane || th.name;
      if (ctx.measureText(label).width > NAME_W - 10) namesClipped++;
      ctx.fillText(label, 4, y + LANE / 2);
      ctx.restore();
      ctx.save();
      ctx.beginPath(); ctx.rect(NAME_W, y, width - NAME_W, LANE); ctx.clip();
      var s = D.samples[th.id];
      if (s) {
        var dt = D.intervalMs[th.file];
        for (var k = Math.max(0, firstAtOrAfter(s.t, view.from - dt * 1000) - 1); k < s.t.length && s.t[k] <= view.to; k++) {
          var x0 = px(s.t[k]), x1 = px(s.t[k] + dt * Math.max(1, s.w[k]));
          var io = D.stackIo[s.s[k]];
          ctx.fillStyle = io ? IO_COLOR : STATE_COLOR[s.st[k]];
          ctx.fillRect(x0, y + LANE - 7, Math.max(1.5, x1 - x0), 5);
          samplesDrawn++;
        }
      }
      (spansOf[th.id] || []).forEach(function (sp) {
        if (sp.e < view.from || sp.s > view.to) return;
        var x0 = px(sp.s), w = Math.max(2, px(sp.e) - px(sp.s));
        ctx.fillStyle = 'rgba(0,137,123,0.45)';
        ctx.fillRect(x0, y + 1, w, 5);
        // The op's name and partition on the lane when the span is wide enough to carry it.
        if (w > 60) {
          ctx.fillStyle = '#00695c';
          ctx.font = '9px sans-serif';
          ctx.fillText(sp.label, Math.max(x0, NAME_W) + 2, y + 11);
          ctx.font = FONT;
        }
        spansDrawn++;
      });
      ctx.restore();
    });
    // Slow safepoints: every thread of that JVM stood stopped, so a band across its lanes for the time to safepoint.
    ctx.save();
    ctx.beginPath(); ctx.rect(NAME_W, AXIS_H, width - NAME_W, lanes.length * LANE); ctx.clip();
    var safepointsDrawn = 0;
    (D.safepoints || []).forEach(function (sp) {
      if (sp.e < view.from || sp.s > view.to) return;
      var x0 = px(sp.s), w = Math.max(2, px(sp.e) - x0);
      ctx.fillStyle = 'rgba(198,40,40,0.14)';
      lanes.forEach(function (th, i) { if (th.file === sp.file) ctx.fillRect(x0, AXIS_H + i * LANE, w, LANE); });
      // The thread that held it up, when one is named: outlined on its lane.
      var hi = sp.h >= 0 ? laneIndex[sp.h] : undefined;
      if (hi !== undefined) {
        ctx.strokeStyle = '#c62828';
        ctx.lineWidth = 1.5;
        ctx.setLineDash(sp.how === 'recorded' ? [] : [3, 2]);
        ctx.strokeRect(x0, AXIS_H + hi * LANE + 1, w, LANE - 2);
        ctx.setLineDash([]);
      }
      safepointsDrawn++;
    });
    ctx.restore();
    document.body.setAttribute('data-safepoints-drawn', String(safepointsDrawn));
    // Waits, then the holder links on top of them.
    ctx.save();
    ctx.beginPath(); ctx.rect(NAME_W, AXIS_H, width - NAME_W, lanes.length * LANE); ctx.clip();
    var waitsDrawn = 0;
    D.waits.forEach(function (w) {
      if (w.e < view.from || w.s > view.to) return;
      var li = laneIndex[w.th];
      var x0 = px(w.s), x1 = Math.max(px(w.e), x0 + 2);
      if (li !== undefined) {
        ctx.fillStyle = lockColor(w.lock);
        ctx.globalAlpha = 0.8;
        ctx.fillRect(x0, AXIS_H + li * LANE + 3, x1 - x0, LANE - 12);
        ctx.globalAlpha = 1;
        waitsDrawn++;
      }
      var hi = w.h >= 0 ? laneIndex[w.h] : undefined;
      if (hi !== undefined) {
        ctx.strokeStyle = lockColor(w.lock);
        ctx.lineWidth = 1.5;
        ctx.strokeRect(x0, AXIS_H + hi * LANE + 2, x1 - x0, LANE - 10);
        if (li !== undefined && x1 - x0 > 3) {
          var xm = (x0 + x1) / 2;
          ctx.setLineDash(w.how === 'recorded' ? [] : [3, 2]);
          ctx.beginPath();
          ctx.moveTo(xm, AXIS_H + li * LANE + LANE / 2);
          ctx.lineTo(xm, AXIS_H + hi * LANE + LANE / 2);
          ctx.stroke();
          ctx.setLineDash([]);
        }
      }
    });
    ctx.restore();
    if (selected !== null && selected >= view.from && selected <= view.to) {
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(px(selected), AXIS_H); ctx.lineTo(px(selected), AXIS_H + lanes.length * LANE); ctx.stroke();
    }
    status.textContent = lanes.length + ' lanes, ' + waitsDrawn + ' waits and ' + samplesDrawn + ' samples in view, '
      + fmt(view.from) + ' to ' + fmt(view.to);
    document.body.setAttribute('data-lanes', String(lanes.length));
    document.body.setAttribute('data-waits-drawn', String(waitsDrawn));
    document.body.setAttribute('data-spans-drawn', String(spansDrawn));
    document.body.setAttribute('data-lane-names-clipped', String(namesClipped));
  }

  /** The sample of a thread that covers time t, or the nearest within two intervals. */
  function sampleAt(th, t) {
    var s = D.samples[th.id];
    if (!s || !s.t.length) return -1;
    var dt = D.intervalMs[th.file];
    // The latest sample at or before t (times are rounded to 0.01 ms), if it still covers t; else the nearest.
    var k = firstAtOrAfter(s.t, t + 0.006);
    var best = -1, bestGap = 2 * dt;
    if (k > 0) {
      var p = k - 1, end = s.t[p] + dt * Math.max(1, s.w[p]);
      var gap = t <= end ? 0 : t - end;
      if (gap <= bestGap) { best = p; bestGap = gap; }
    }
    if (k < s.t.length && s.t[k] - t < bestGap) best = k;
    return best;
  }

  /** "records_append 480 ms, orders-7, 524288 bytes (stallscope.RecordsAppend)": an agent span, for hover and click. */
  function spanText(sp) {
    return sp.op + ' ' + fmt(sp.e - sp.s) + (sp.tp ? ', ' + sp.tp : '') + (sp.bytes >= 0 ? ', ' + sp.bytes + ' bytes' : '')
      + (sp.failed ? ', failed' : '') + ' (' + sp.type + ', from +' + fmt(sp.s) + ')';
  }

  /** The agent spans of a thread covering time t (within a tolerance, for hovering thin spans). */
  function spansAt(thId, t, tol) {
    return (spansOf[thId] || []).filter(function (sp) { return sp.s - tol <= t && sp.e + tol >= t; });
  }

  function select(t) {
    selected = t;
    draw();
    while (details.firstChild) details.removeChild(details.firstChild);
    var h = document.createElement('h3');
    h.id = 'moment';
    h.textContent = 'Stacks at +' + fmt(t);
    details.appendChild(h);
    var waitingAt = {}, holdingAt = {};
    D.waits.forEach(function (w) {
      if (w.s <= t && w.e >= t) {
        waitingAt[w.th] = w;
        if (w.h >= 0) holdingAt[w.h] = w;
      }
    });
    var shown = 0;
    lanes.forEach(function (th) {
      var k = sampleAt(th, t);
      var w = waitingAt[th.id], hw = holdingAt[th.id], ops = spansAt(th.id, t, 0);
      if (k < 0 && !w && !hw && !ops.length) return;
      var div = document.createElement('div');
      div.className = 'thread' + (w ? ' waiting' : hw ? ' holding' : '');
      div.setAttribute('data-thread', th.name);
      var title = document.createElement('h4');
      var s = D.samples[th.id];
      title.textContent = th.name + (k >= 0 ? ' (' + STATE_NAME[s.st[k]] + ', sampled at +' + fmt(s.t[k]) + ')' : '');
      div.appendChild(title);
      if (w) {
        var note = document.createElement('div');
        note.className = 'note';
        note.textContent = 'waiting for ' + D.locks[w.lock].label + (w.h >= 0 ? ', held by ' + D.threads[D.threadPos[w.h]].name
          + ' (' + w.how + (w.how === 'inferred' ? ', confidence ' + w.c.toFixed(2) : '') + ')' : '') + ' for ' + fmt(w.e - w.s)
          + (w.src === 'recorded' ? ' (source: recorded)' : ' (source: inferred from ' + w.n + ' sample' + (w.n === 1 ? '' : 's') + ')');
        div.appendChild(note);
      }
      ops.forEach(function (sp) {
        var on = document.createElement('div');
        on.className = 'note op';
        on.textContent = 'in agent op ' + spanText(sp);
        div.appendChild(on);
      });
      if (hw) {
        var hn = document.createElement('div');
        hn.className = 'note';
        hn.textContent = 'holding ' + D.locks[hw.lock].label + ' while ' + D.threads[D.threadPos[hw.th]].name + ' waits';
        div.appendChild(hn);
      }
      if (k >= 0) {
        var ol = document.createElement('ol');
        D.stacks[s.s[k]].forEach(function (f) {
          var li = document.createElement('li');
          li.textContent = D.frames[f];
          ol.appendChild(li);
        });
        div.appendChild(ol);
      }
      details.appendChild(div);
      shown++;
    });
    document.body.setAttribute('data-selected', String(t));
    document.body.setAttribute('data-stacks-shown', String(shown));
  }

  // Zoom around the cursor, pan by dragging, click to select a moment, double-click to reset.
  lanesEl.addEventListener('wheel', function (e) {
    e.preventDefault();
    var x = e.offsetX, t = timeAt(Math.max(NAME_W, x));
    var f = e.deltaY < 0 ? 0.8 : 1.25;
    var span = Math.min(Math.max((view.to - view.from) * f, 0.05), D.durationMs * 1.5 + 1);
    var r = (t - view.from) / (view.to - view.from);
    view.from = t - r * span; view.to = view.from + span;
    draw();
  }, { passive: false });
  var drag = null;
  lanesEl.addEventListener('mousedown', function (e) { drag = { x: e.clientX, from: view.from, to: view.to, moved: false }; });
  window.addEventListener('mousemove', function (e) {
    if (!drag) return;
    var dx = e.clientX - drag.x;
    if (Math.abs(dx) > 3) drag.moved = true;
    var dt = dx / (width - NAME_W) * (drag.to - drag.from);
    view.from = drag.from - dt; view.to = drag.to - dt;
    draw();
  });
  window.addEventListener('mouseup', function (e) {
    if (drag && !drag.moved) {
      var rect = canvas.getBoundingClientRect();
      var x = e.clientX - rect.left;
      if (x >= NAME_W) select(timeAt(x));
    }
    drag = null;
  });
  // Hovering an agent span names it: op, duration, topic-partition, bytes.
  canvas.addEventListener('mousemove', function (e) {
    if (drag) return;
    var rect = canvas.getBoundingClientRect();
    var x = e.clientX - rect.left, y = e.clientY - rect.top;
    var li = Math.floor((y - AXIS_H) / LANE);
    var tip = '';
    if (x < NAME_W && li >= 0 && li < lanes.length) tip = lanes[li].name;
    if (x >= NAME_W && li >= 0 && li < lanes.length) {
      var tol = 3 * (view.to - view.from) / Math.max(1, width - NAME_W);
      var found = spansAt(lanes[li].id, timeAt(x), tol);
      if (found.length) tip = lanes[li].name + ': ' + found.map(spanText).join('; ');
    }
    canvas.title = tip;
  });
  lanesEl.addEventListener('dblclick', function () { view = { from: 0, to: Math.max(1, D.durationMs) }; draw(); });
  document.getElementById('filter').addEventListener('input', function (e) { applyFilter(e.target.value); });
  document.getElementById('reset').addEventListener('click', function () { view = { from: 0, to: Math.max(1, D.durationMs) }; draw(); });
  window.addEventListener('resize', layout);

  // Flame views of the waiting and the holding stacks: nested boxes, each as wide as its share of its parent,
  // built as DOM (textContent only), so a box's title names its method, time and share.
  var FLAME_COLORS = ['#ffcc80', '#ffb74d', '#ffe082', '#ffab91', '#ffd54f', '#f8bbd0', '#ffccbc'];
  function flameColor(name) {
    var h = 0;
    for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) | 0;
    return FLAME_COLORS[Math.abs(h) % FLAME_COLORS.length];
  }
  function flameBox(node, total, counter) {
    var box = document.createElement('div');
    box.className = 'fbox';
    var label = document.createElement('div');
    label.className = 'flabel';
    label.textContent = node.n;
    label.title = node.n + ': ' + fmt(node.ms) + ' (' + (100 * node.ms / total).toFixed(1) + '%)';
    label.style.background = flameColor(node.n);
    box.appendChild(label);
    counter.n++;
    if (node.c && node.c.length) {
      var kids = document.createElement('div');
      kids.className = 'fkids';
      node.c.forEach(function (c) {
        var k = flameBox(c, total, counter);
        k.style.width = (100 * c.ms / Math.max(node.ms, 1e-9)) + '%';
        kids.appendChild(k);
      });
      box.appendChild(kids);
    }
    return box;
  }
  function buildFlame(id, root, what) {
    var el = document.getElementById(id);
    var counter = { n: 0 };
    if (!root || !root.c || !root.c.length) {
      var p = document.createElement('p');
      p.className = 'hint';
      p.textContent = 'No ' + what + ' in this recording.';
      el.appendChild(p);
    } else {
      root.n = 'all: ' + fmt(root.ms);
      el.appendChild(flameBox(root, root.ms, counter));
    }
    el.setAttribute('data-nodes', String(counter.n));
  }
  buildFlame('flame-waiting', D.flames.waiting, 'lock waits');
  buildFlame('flame-holding', D.flames.holding, 'holders seen during lock waits');

  buildLegend();
  applyFilter('');
  // Self-test and deep links: #filter=REGEX&t=MS selects a moment as a click would (used by the browser test).
  // A finding's "show on the timeline" link sets the same hash after load.
  function followHash() {
    var hash = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
      var i = kv.indexOf('=');
      if (i > 0) hash[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
    });
    if (hash.filter) { document.getElementById('filter').value = hash.filter; applyFilter(hash.filter); }
    if (hash.t !== undefined) select(parseFloat(hash.t));
  }
  followHash();
  // A finding's link, followed from the findings list: bring the timeline with the selected moment into view.
  window.addEventListener('hashchange', function () { followHash(); lanesEl.scrollIntoView(); });
  document.body.setAttribute('data-ready', 'true');
})();
