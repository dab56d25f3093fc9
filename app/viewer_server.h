#pragma once
// A minimal static file server for `planetgen view DIR`: serves the web viewer (app/viewer)
// and a generated planet's files to a browser on this machine.
//
// HTTP/1.1 GET and HEAD on 127.0.0.1 only. One thread serves every connection with
// non-blocking sockets (epoll): no client, however slow, holds anything but its own connection.
// Limits per connection: a request's whole head must arrive within 5 s of the moment the
// connection could send it (not 5 s per read: a client that trickles a header line every few
// seconds is cut off all the same); an idle kept-alive connection is closed after 2 s; a client
// that takes nothing of a response for 10 s is dropped; 100 responses, then the connection
// closes. At most 4096 connections (fewer if the descriptor limit is lower; the soft limit is
// raised to the hard one): at the bound, the connection that has made no progress for longest
// is closed to make room, so a flood of slow connections can never lock a client out.
// Requests pipelined on a connection are answered in order; a request with a body (not read)
// is answered and the connection closed. Request heads are parsed as http_request.h says
// (400 for malformed ones, for an HTTP/1.1 request without Host, and for two Host fields).
// URL paths:
//   /                     -> viewer_dir/PAGE (always a viewer's page: index.html for a planet,
//                            tiles.html for a tiles folder)
//   /NAME (one segment)   -> planet_dir/NAME if that is a regular file, else viewer_dir/NAME
//   /a/b/...              -> viewer_dir/a/b/... (e.g. node_modules/three/build/three.module.js)
// The Host field must be 127.0.0.1:PORT or localhost:PORT (else 403: DNS rebinding). Query
// strings are ignored. Percent-escapes are decoded first; a path with a ".." segment, a
// backslash or a NUL byte is refused with 403; hidden names (".git"), symlinks anywhere in the
// path and anything not a regular file give 404. Files are opened through the folder's
// descriptor (viewer_server_paths.h), so no link swapped in meanwhile can lead outside the
// folder. Content-Type comes from
// the extension (.html, .js/.mjs, .css, .json, .glb, .gltf, .bin, .png, .jpg, .svg, .ico,
// .wasm, .txt; anything else application/octet-stream). Responses carry
// Cache-Control: no-cache and no validators, so the browser refetches every time and a
// regenerated planet is always reloaded. (Not no-store: Chromium reports a no-store fetch
// whose body is read through getReader(), as three.js's FileLoader does, as failed with
// net::ERR_ABORTED in DevTools even though the page received every byte.)
// A GET's single byte range (Range: bytes=A-B, A-, -N) gets 206 with that part (an end past the
// file clamped to its last byte) or, starting at or past the end, 416 with bytes */SIZE; other
// Range fields (malformed, another unit, several ranges, with If-Range) are ignored: 200.

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace app {

// Binds 127.0.0.1:port (0 picks a free port; a port another server listens on is an error,
// no SO_REUSEPORT sharing), calls on_ready("http://127.0.0.1:PORT/") once
// listening, then serves until *stop becomes true (checked every 100 ms; nullptr:
// forever, until the process is signalled). Returns 0 after a stop. Throws std::runtime_error
// naming the address and the OS error if the socket cannot be bound or listened on, and
// std::invalid_argument naming the folder if a folder does not exist or is not a folder (an
// exception from on_ready propagates). `page` is the viewer's page "/" serves: a plain file
// name in viewer_dir (std::invalid_argument otherwise). Never prints; a failing connection only
// ends itself.
int serveViewer(const std::filesystem::path& planet_dir, const std::filesystem::path& viewer_dir,
                int port, std::function<void(std::string url)> on_ready,
                const std::atomic<bool>* stop = nullptr, const std::string& page = "index.html");

// The viewer's folder in the source tree this binary was built from (app/viewer). Run
// `npm ci --prefix <it>` once to fetch three.js into its node_modules.
std::filesystem::path defaultViewerDir();

// Content-Type for a file name by its extension (see above).
std::string_view mimeTypeFor(const std::filesystem::path& file);

}  // namespace app
