(function () {
  var st = window.__accelRender;
  var nodes = Array.prototype.slice.call(document.querySelectorAll('.chart[data-spec]'));
  st.charts = nodes.length;
  if (typeof vegaEmbed !== 'function') {
    st.errors.push('vega-embed did not load');
    st.done = true;
    window.__accelWriteStatus();
    return;
  }
  var jobs = nodes.map(function (el) {
    var spec;
    try {
      spec = JSON.parse(document.getElementById(el.getAttribute('data-spec')).textContent);
    } catch (e) {
      st.errors.push(el.id + ': unreadable spec: ' + e.message);
      return Promise.resolve();
    }
    return vegaEmbed(el, spec, {mode: 'vega-lite', renderer: 'svg', actions: false}).then(function (res) {
      var svg = el.querySelector('svg');
      var marks = svg ? svg.querySelectorAll('path, rect, line, circle, text').length : 0;
      if (marks > 0) {
        st.drawn += 1;
        el.setAttribute('data-drawn', String(marks));
      } else {
        st.errors.push(el.id + ': the chart drew nothing');
      }
      res.view.addEventListener('error', function (e) { st.errors.push(el.id + ': ' + e); });
    }, function (err) {
      st.errors.push(el.id + ': ' + String(err && err.message ? err.message : err));
      el.textContent = 'This chart could not be drawn: ' + String(err && err.message ? err.message : err);
    });
  });
  Promise.all(jobs).then(function () {
    st.done = true;
    window.__accelWriteStatus();
  });
})();
