#pragma once
// A minimal static file server for `planetgen view DIR`: serves the web viewer (export/viewer)
// and a generated planet's files to a browser on this machine.
//
// HTTP/1.1 GET and HEAD on 127.0.0.1 only. Single-threaded: poll() watches every open
// connection and answers each as soon as its request headers are complete, then closes it
// (Connection: close; browsers open more connections as needed). URL paths:
//   /                     -> viewer_dir/index.html (always the viewer's page)
//   /NAME (one segment)   -> planet_dir/NAME if that is a regular file, else viewer_dir/NAME
//   /a/b/...              -> viewer_dir/a/b/... (e.g. node_modules/three/build/three.module.js)
// Query strings are ignored. Percent-escapes are decoded first; a path with a ".." segment, a
// backslash or a NUL byte is refused with 403, hidden names (".git") and anything not a
// regular file inside the root (after resolving symlinks) give 404. Content-Type comes from
// the extension (.html, .js/.mjs, .css, .json, .glb, .gltf, .bin, .png, .jpg, .svg, .ico,
// .wasm, .txt; anything else application/octet-stream). Responses carry
// Cache-Control: no-cache and no validators, so the browser refetches every time and a
// regenerated planet is always reloaded. (Not no-store: Chromium reports a no-store fetch
// whose body is read through getReader(), as three.js's FileLoader does, as failed with
// net::ERR_ABORTED in DevTools even though the page received every byte.)

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace planet_export {

// Binds 127.0.0.1:port (0 picks a free port), calls on_ready("http://127.0.0.1:PORT/") once
// listening, then serves until *stop becomes true (checked at least every 200 ms; nullptr:
// forever, until the process is signalled). Returns 0 after a stop. Throws std::runtime_error
// naming the address and the OS error if the socket cannot be bound or listened on, and
// std::invalid_argument if a folder does not exist. Never prints; a failing connection (client
// gone, no complete request within 30 s, not reading the response for 30 s) only ends itself.
int serveViewer(const std::filesystem::path& planet_dir, const std::filesystem::path& viewer_dir,
                int port, std::function<void(std::string url)> on_ready,
                const std::atomic<bool>* stop = nullptr);

// The viewer's folder in the source tree this binary was built from (export/viewer). Run
// `npm ci --prefix <it>` once to fetch three.js into its node_modules.
std::filesystem::path defaultViewerDir();

// Content-Type for a file name by its extension (see above).
std::string_view mimeTypeFor(const std::filesystem::path& file);

}  // namespace planet_export
