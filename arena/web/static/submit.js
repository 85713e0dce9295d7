// The upload form: says at once when the chosen file is over the server's limit, rather than after
// uploading it.
(function () {
  "use strict";
  var input = document.getElementById("submit-archive");
  var warning = document.getElementById("submit-too-large");
  if (!input || !warning) { return; }
  input.addEventListener("change", function () {
    var file = input.files && input.files[0];
    var over = Boolean(file) && file.size > Number(input.dataset.maxBytes);
    warning.hidden = !over;
    input.setCustomValidity(over ? warning.textContent : "");
  });
}());
