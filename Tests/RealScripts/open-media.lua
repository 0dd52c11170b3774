-- Re-creates the Ctrl+F dialog of ObserverOfTime/mpv-scripts' open-dialog (zenity.lua) while a
-- file plays: --modal, a window icon, the playing file's folder and then its name as a second,
-- stray word, a real newline as the separator, several files. Our own text.
local folder = os.getenv("FILES") or "."
local icon = os.getenv("ICON") or "mpv.png"
local function quote(word) return "'" .. word:gsub("'", "'\\''") .. "'" end
local words = { "zenity", "--modal", "--title", "Select Files", "--window-icon", icon, "--filename", folder .. "/", "playing.mkv",
                "--file-filter", "Multimedia Files | *.mkv *.mp4 *.ogg *.mp3 *.webm", "--file-selection", "--separator", "\n", "--multiple" }
local line = {}
for _, word in ipairs(words) do line[#line + 1] = quote(word) end
local answer = io.popen(table.concat(line, " ")):read("a")
for path in answer:gmatch("[^\n]+") do print("loadfile " .. path .. " append-play") end
