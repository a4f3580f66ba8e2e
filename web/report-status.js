window.__accelRender = {charts: 0, drawn: 0, errors: [], done: false};
window.__accelWriteStatus = function () {
  var el = document.getElementById('render-status');
  if (el) el.textContent = JSON.stringify(window.__accelRender);
};
window.addEventListener('error', function (e) {
  window.__accelRender.errors.push(String(e.message || 'error') + (e.filename ? ' (' + e.filename + ':' + e.lineno + ')' : ''));
  window.__accelWriteStatus();
});
window.addEventListener('unhandledrejection', function (e) {
  var r = e.reason;
  window.__accelRender.errors.push('unhandled rejection: ' + String(r && r.message ? r.message : r));
  window.__accelWriteStatus();
});
