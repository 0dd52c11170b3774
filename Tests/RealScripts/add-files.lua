-- Re-creates carmanaught/mpvcontextmenu's "add files" dialog with nothing playing: an empty
-- --filename=, a real newline as the separator, filters of videos, audio, images, then all files.
-- Our own text.
local function quote(word) return "'" .. word:gsub("'", "'\\''") .. "'" end
local words = { "zenity", "--file-selection", "--multiple", "--title=Select Files", "--separator=\n", "--filename=",
                "--file-filter=Videos | *.mkv *.mp4 *.webm", "--file-filter=Audio | *.mp3 *.ogg *.flac",
                "--file-filter=Images | *.bmp *.gif *.jpeg *.jpg *.png *.tif *.tiff", "--file-filter=All Files | *" }
local line = {}
for _, word in ipairs(words) do line[#line + 1] = quote(word) end
local answer = io.popen(table.concat(line, " ")):read("a")
local first = true
for path in answer:gmatch("[^\n]+") do
    print("loadfile " .. path .. (first and " replace" or " append"))
    first = false
end
