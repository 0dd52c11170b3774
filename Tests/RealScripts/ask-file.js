#!/usr/bin/env node
// Re-creates bat-tomr/dialog-node's fileselect: --text and --timeout 0 (which a file selection
// takes), run through the shell, the answer's last character cut. Our own text.
const { exec } = require("child_process");
exec("zenity --file-selection --text 'Type some text' --title 'entry prompt' --timeout 0", (error, stdout) => {
  console.log("return value = <" + stdout.slice(0, -1) + ">");
});
