extension PreviewPage {
    /// The page's script: posts the form to `/v1/preview` (or reads the embedded document) and draws a
    /// `StoryPreview` document. Where the story is, which pages the phone shows, their texts and durations, and which
    /// screen the phone shows (`story`, the fallback `alert` card, `silent`, `rejected`, `not_json`) all come from
    /// the document's `story` and `screen` fields (`PreviewScreen`), so the script applies no payload rule: it runs
    /// the story viewer (progress bars that fill over each page's duration, a tap on the left or right half to go
    /// back or forward, a button that shows the link it would open and never navigates) and lists the findings.
    static let script = #"""
        (function () {
          "use strict";
          var form = document.getElementById("preview-form");
          var area = document.getElementById("document");
          var upload = document.getElementById("upload");
          var statusLine = document.getElementById("status");
          var main = document.getElementById("preview");
          var viewers = [];

          function element(tag, className, text) {
            var node = document.createElement(tag);
            if (className) node.className = className;
            if (text !== undefined && text !== null) node.textContent = String(text);
            return node;
          }
          function imageFor(images, url) {
            var value = url ? images[url] : null;
            return typeof value === "string" && value.indexOf("data:image/") === 0 ? value : null;
          }
          function kilobytes(bytes) { return (bytes / 1024).toFixed(1) + " KB"; }
          function mediaFinding(media) {
            if (!media.error) return null;
            return { severity: "error", code: media.error.code, message: media.error.message, pointer: media.pointer };
          }
          function findingList(findings) {
            var list = element("ul", "findings");
            findings.forEach(function (finding) {
              var item = element("li", finding.severity);
              item.appendChild(element("span", "code", finding.code));
              item.appendChild(document.createTextNode(" " + finding.message + " "));
              item.appendChild(element("span", "pointer", finding.pointer || "/"));
              if (finding.fix) item.appendChild(element("div", "fix", "Fix: " + finding.fix));
              list.appendChild(item);
            });
            return list;
          }

          // The lock screen with one plain notification: what the SDK shows for a push without a usable story.
          function alertCard(alert, result, images) {
            var card = element("div", "notification");
            card.appendChild(element("div", "icon"));
            var text = element("div", "text");
            text.appendChild(element("div", "app", "Your app · now"));
            if (alert.title) text.appendChild(element("div", "title", alert.title));
            if (alert.subtitle) text.appendChild(element("div", "subtitle", alert.subtitle));
            if (alert.body) text.appendChild(element("div", "body", alert.body));
            card.appendChild(text);
            var attachment = (result.media || []).filter(function (media) {
              return media.variant === "attachment" && imageFor(images, media.cached_url);
            })[0];
            if (attachment) {
              var thumbnail = element("img", "thumbnail");
              thumbnail.alt = "attachment";
              thumbnail.src = imageFor(images, attachment.cached_url);
              card.appendChild(thumbnail);
            }
            return card;
          }
          // The same push on an Android phone, collapsed and expanded, from the rendered Android fields (or a field
          // every platform reads): the large icon beside the text, the big picture below it. Firebase's SDK shows
          // its one image as both, which is what a lone big picture gives here too. Null when no Android image.
          function androidCard(alert, result, images) {
            var pictures = (result.media || []).filter(function (media) {
              return media.platform !== "ios" && imageFor(images, media.cached_url);
            });
            var picture = pictures.filter(function (media) { return media.variant !== "large_icon"; })[0];
            var icon = pictures.filter(function (media) { return media.variant === "large_icon"; })[0] || picture;
            if (!picture && !icon) return null;
            var box = element("div", "android");
            [["collapsed", false], ["expanded", true]].forEach(function (state) {
              var card = element("div", "notification android-" + state[0]);
              var text = element("div", "text");
              text.appendChild(element("div", "app", "Your app · now · " + state[0]));
              if (alert.title) text.appendChild(element("div", "title", alert.title));
              if (alert.body) text.appendChild(element("div", "body", alert.body));
              card.appendChild(text);
              if (icon && !(state[1] && picture)) {
                var small = element("img", "large-icon");
                small.alt = "large icon";
                small.src = imageFor(images, icon.cached_url);
                card.appendChild(small);
              }
              if (state[1] && picture) {
                var big = element("img", "big-picture");
                big.alt = "big picture";
                big.src = imageFor(images, picture.cached_url);
                card.appendChild(big);
              }
              box.appendChild(card);
            });
            return box;
          }
          function lockScreen(content, note) {
            var screen = element("div", "lock");
            screen.appendChild(element("div", "clock", "9:41"));
            screen.appendChild(content);
            if (note) screen.appendChild(element("div", "note", note));
            return screen;
          }
          function stateScreen(className, title, reason) {
            var screen = element("div", "state " + className);
            screen.appendChild(element("div", "state-title", title));
            if (reason) screen.appendChild(element("div", "state-reason", reason));
            return screen;
          }

          // The story as the phone plays it: one slide per page the device reads, in order.
          function storyViewer(story, images, fetched, onPage) {
            var pages = story.pages;
            var viewer = element("div", "viewer story");
            viewer.dataset.pages = String(pages.length);
            var progress = element("div", "progress");
            var fills = pages.map(function () {
              var bar = element("i", "bar");
              var fill = element("span", "fill");
              bar.appendChild(fill);
              progress.appendChild(bar);
              return fill;
            });
            var slides = pages.map(function (page, index) {
              var slide = element("div", "slide");
              var source = imageFor(images, page.image);
              if (source) {
                var image = element("img");
                image.alt = "story page " + (index + 1);
                image.src = source;
                slide.appendChild(image);
              } else {
                slide.appendChild(element("div", "placeholder", (fetched ? "Image not inlined (answer size limit) or not in the cache: " : "Not fetched (--no-fetch): ") + (page.image || "")));
              }
              var caption = element("div", "caption");
              if (page.title) caption.appendChild(element("div", "title", page.title));
              if (page.subtitle) caption.appendChild(element("div", "subtitle", page.subtitle));
              if (page.button_title || page.link) {
                var button = element("button", "story-button");
                button.type = "button";
                if (page.button_title) button.appendChild(element("span", "button-title", page.button_title));
                if (page.link) {
                  button.appendChild(element("span", "button-link", page.link));
                  button.dataset.link = page.link;
                }
                button.addEventListener("click", function (event) {
                  event.stopPropagation();
                  toast.textContent = page.link ? "Opens " + page.link + " (not followed in the preview)" : "No link: this button opens nothing";
                  toast.className = "toast shown";
                });
                caption.appendChild(button);
              }
              slide.appendChild(caption);
              viewer.appendChild(slide);
              return slide;
            });
            viewer.appendChild(progress);
            var toast = element("div", "toast");
            viewer.appendChild(toast);
            var end = element("div", "end", "End of the story: the phone closes it. Tap to replay.");
            viewer.appendChild(end);

            var current = 0, started = 0, finished = false;
            function show(index) {
              current = Math.max(0, Math.min(pages.length - 1, index));
              finished = false;
              viewer.dataset.finished = "false";
              viewer.dataset.page = String(current + 1);
              started = performance.now();
              toast.className = "toast";
              slides.forEach(function (slide, position) { slide.className = "slide" + (position === current ? " current" : ""); });
              fills.forEach(function (fill, position) { fill.style.width = position < current ? "100%" : "0%"; });
              onPage(current);
            }
            function finish() {
              finished = true;
              viewer.dataset.finished = "true";
              fills.forEach(function (fill) { fill.style.width = "100%"; });
            }
            viewer.addEventListener("click", function (event) {
              if (finished) { show(0); return; }
              var box = viewer.getBoundingClientRect();
              if (event.clientX - box.left < box.width / 2) show(current - 1);
              else if (current === pages.length - 1) finish();
              else show(current + 1);
            });
            function tick(now) {
              if (!finished && viewer.isConnected) {
                var fraction = (now - started) / (1000 * pages[current].duration);
                fills[current].style.width = (100 * Math.min(1, fraction)).toFixed(2) + "%";
                if (fraction >= 1) {
                  if (current === pages.length - 1) finish(); else show(current + 1);
                }
              }
            }
            viewers.push(tick);
            show(0);
            return viewer;
          }

          function pageDetails(box, page, index, count) {
            box.textContent = "";
            box.appendChild(element("h3", "", "Page " + (index + 1) + " of " + count));
            var facts = page.duration + " s" + (page.duration_is_default ? " (the SDK's default)" : "");
            var media = page.media;
            if (media && media.width) facts += " · " + media.width + "×" + media.height + " " + media.format + " " + kilobytes(media.bytes);
            if (media && media.source_width) facts += " · source " + media.source_width + "×" + media.source_height;
            box.appendChild(element("p", "facts", facts));
            if (page.findings.length) box.appendChild(findingList(page.findings));
            else box.appendChild(element("p", "clean", "No findings on this page."));
          }

          function byteMeter(result) {
            var box = element("div", "bytes");
            if (!result.apns) { box.textContent = "No payload: nothing is sent."; return box; }
            var bytes = result.apns.bytes, limit = result.apns.limit;
            box.appendChild(element("div", "count", "Payload " + bytes + " / " + limit + " bytes"));
            var meter = element("div", "meter" + (bytes > limit ? " over" : bytes > 0.9 * limit ? " near" : ""));
            var fill = element("span");
            fill.style.width = Math.min(100, 100 * bytes / limit).toFixed(1) + "%";
            meter.appendChild(fill);
            box.appendChild(meter);
            return box;
          }

          function mediaTable(result) {
            var table = element("table", "media");
            var head = element("tr");
            ["media", "platform", "variant", "status", "size", "source size", "ms", "source"].forEach(function (name) { head.appendChild(element("th", "", name)); });
            table.appendChild(head);
            (result.media || []).forEach(function (media) {
              var row = element("tr");
              var size = media.width ? media.width + "×" + media.height + " " + media.format + " " + kilobytes(media.bytes) : (media.error ? media.error.code : "");
              var source = media.source_width ? media.source_width + "×" + media.source_height : "";
              [media.pointer, media.platform, media.variant, media.status, size, source, media.ms, media.source].forEach(function (value) { row.appendChild(element("td", "", value)); });
              table.appendChild(row);
            });
            return table;
          }

          var stateLabels = { story: null, alert: null, silent: null, rejected: "rejected", not_json: "not JSON" };

          function job(file, result, document_) {
            var screen = result.screen || { state: "rejected" };
            var section = element("section", "job");
            section.dataset.state = screen.state;
            var heading = element("h2", "", file + (result.id ? " · " + result.id : "") + (result.line ? " (line " + result.line + ")" : ""));
            var label = stateLabels[screen.state] || result.status;
            heading.appendChild(element("span", "badge " + (screen.state === "not_json" ? "rejected" : result.status), label));
            section.appendChild(heading);
            var row = element("div", "row");
            var phone = element("div", "phone");
            var summary = element("div", "summary");
            summary.appendChild(byteMeter(result));
            var pageBox = element("div", "page-details");
            if (screen.state === "story") {
              phone.appendChild(storyViewer(result.story, document_.images, document_.fetched, function (index) {
                pageDetails(pageBox, result.story.pages[index], index, result.story.pages.length);
              }));
              if (screen.alert) {
                summary.appendChild(element("h3", "", "On the lock screen, before the story opens"));
                var lock = element("div", "lock-preview");
                lock.appendChild(alertCard(screen.alert, result, document_.images));
                summary.appendChild(lock);
              }
              summary.appendChild(pageBox);
            } else if (screen.state === "alert") {
              phone.appendChild(lockScreen(alertCard(screen.alert, result, document_.images), "No story: the phone shows the notification as a plain alert."));
            } else if (screen.state === "silent") {
              phone.appendChild(lockScreen(element("div", "notification none", "No alert: a silent push shows nothing.")));
            } else if (screen.state === "not_json") {
              phone.appendChild(stateScreen("not-json", "Not JSON", screen.reason));
            } else {
              phone.appendChild(stateScreen("rejected", "Rejected: nothing is sent", screen.reason));
            }
            row.appendChild(phone);
            var android = screen.alert ? androidCard(screen.alert, result, document_.images) : null;
            if (android) {
              summary.appendChild(element("h3", "", "On an Android phone"));
              summary.appendChild(android);
            }
            var findings = (result.diagnostics || []).concat((result.media || []).map(mediaFinding).filter(Boolean));
            summary.appendChild(element("h3", "", "All findings"));
            if (findings.length) summary.appendChild(findingList(findings));
            else summary.appendChild(element("p", "clean", "No findings."));
            if (result.media && result.media.length) summary.appendChild(mediaTable(result));
            row.appendChild(summary);
            section.appendChild(row);
            if (result.apns) {
              var details = element("details");
              details.appendChild(element("summary", "", "Rewritten APNs request"));
              details.appendChild(element("pre", "", JSON.stringify({ headers: result.apns.headers, payload: result.apns.payload }, null, 2)));
              section.appendChild(details);
            }
            return section;
          }

          function render(document_) {
            main.textContent = "";
            viewers = [];
            var overall = element("p", "overall");
            overall.appendChild(element("span", "badge " + (document_.valid ? "valid" : "invalid"), document_.valid ? "valid" : "findings"));
            overall.appendChild(document.createTextNode(" " + document_.summary));
            main.appendChild(overall);
            (document_.reports || []).forEach(function (report) {
              (report.results || []).forEach(function (result) {
                main.appendChild(job(report.file, result, document_));
              });
            });
            main.dataset.rendered = "true";
          }

          function frame(now) {
            viewers.forEach(function (tick) { tick(now); });
            requestAnimationFrame(frame);
          }
          requestAnimationFrame(frame);

          // JSON and NDJSON go as such; anything else as a URL list, which the server previews as a document
          // (so "not JSON") when a line is not an http(s) URL.
          function contentType(text) {
            var trimmed = text.trim();
            if (trimmed === "" || trimmed[0] === "{" || trimmed[0] === "[") {
              try { JSON.parse(trimmed); return "application/json"; } catch (error) {
                return trimmed[0] === "{" ? "application/x-ndjson" : "application/json";
              }
            }
            return "text/uri-list";
          }

          form.addEventListener("submit", function (event) {
            event.preventDefault();
            statusLine.className = "";
            statusLine.textContent = "Fetching and rendering…";
            var headers = { "Content-Type": contentType(area.value) };
            var token = document.getElementById("token").value.trim();
            if (token) headers.Authorization = "Bearer " + token;
            fetch("/v1/preview", { method: "POST", headers: headers, body: area.value })
              .then(function (response) { return response.json(); })
              .then(function (answer) {
                if (!answer.reports) throw new Error(answer.error ? answer.error.message : "unexpected answer");
                render(answer);
                statusLine.textContent = answer.valid ? "Done: nothing fails validation." : "Done: see the findings below.";
              })
              .catch(function (error) {
                statusLine.className = "failed";
                statusLine.textContent = "Preview failed: " + error.message;
              });
          });
          upload.addEventListener("change", function () {
            var file = upload.files[0];
            if (file) file.text().then(function (text) { area.value = text; });
          });

          var embedded = document.getElementById("preview-data").textContent.trim();
          if (embedded) {
            form.className = "hidden";
            render(JSON.parse(embedded));
          }
        })();
        """#
}
