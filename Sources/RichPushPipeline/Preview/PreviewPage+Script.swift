import RichPushCore
import RichPushPayload
import RichPushImaging
import RichPushHTTP
import RichPushCache
extension PreviewPage {
    /// The page's script: posts the form to `/v1/preview` (or reads the embedded document) and renders a
    /// `StoryPreview` document. It joins the report's parts (a story page to its media by `cached_url`, a finding to
    /// its page by the page number in its JSON pointer) and applies no payload rule of its own.
    static let script = #"""
        (function () {
          "use strict";
          var form = document.getElementById("preview-form");
          var area = document.getElementById("document");
          var upload = document.getElementById("upload");
          var statusLine = document.getElementById("status");
          var main = document.getElementById("preview");

          function element(tag, className, text) {
            var node = document.createElement(tag);
            if (className) node.className = className;
            if (text !== undefined && text !== null) node.textContent = String(text);
            return node;
          }
          function pageIndex(pointer) {
            var match = /^\/pw_stories\/pages\/(\d+)(\/|$)/.exec(pointer || "");
            return match ? Number(match[1]) : null;
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

          function lockScreen(result, images) {
            var phone = element("div", "phone");
            phone.appendChild(element("div", "clock", "9:41"));
            var payload = result.apns ? result.apns.payload : null;
            var alert = payload && payload.aps ? payload.aps.alert : null;
            if (!payload) {
              phone.appendChild(element("div", "notification none", "Rejected: nothing is sent."));
              return phone;
            }
            if (alert === undefined || alert === null) {
              phone.appendChild(element("div", "notification none", "No alert: a silent push shows nothing."));
              return phone;
            }
            if (typeof alert === "string") alert = { body: alert };
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
            phone.appendChild(card);
            return phone;
          }

          // One slot per story page number: the pages the phone shows (joined to their media by URL) and the pages
          // that were dropped (known only from their media result or their findings).
          function storySlots(result) {
            var payload = result.apns ? result.apns.payload : null;
            var pages = payload && payload.pw_stories && Array.isArray(payload.pw_stories.pages) ? payload.pw_stories.pages : [];
            var storyMedia = (result.media || []).filter(function (media) { return pageIndex(media.pointer) !== null; });
            var slots = {};
            function slot(index) { return slots[index] || (slots[index] = { index: index, page: null, media: null, findings: [] }); }
            var used = [];
            pages.forEach(function (page, position) {
              var match = storyMedia.filter(function (media) {
                return used.indexOf(media) < 0 && (media.cached_url ? media.cached_url === page.image : media.source === (page.image_source || page.image));
              })[0];
              var index = match ? pageIndex(match.pointer) : position;
              if (match) used.push(match);
              if (slots[index] && slots[index].page) index = 1000 + position;
              var target = slot(index);
              target.page = page;
              target.position = position;
              target.media = match || null;
            });
            storyMedia.forEach(function (media) {
              if (used.indexOf(media) >= 0) return;
              var target = slot(pageIndex(media.pointer));
              if (!target.page) target.media = media;
              var finding = mediaFinding(media);
              if (finding) target.findings.push(finding);
            });
            var general = [];
            (result.diagnostics || []).forEach(function (diagnostic) {
              var index = pageIndex(diagnostic.pointer);
              if (index === null || (pages.length === 0 && storyMedia.length === 0)) general.push(diagnostic);
              else slot(index).findings.push(diagnostic);
            });
            (result.media || []).forEach(function (media) {
              if (pageIndex(media.pointer) === null && mediaFinding(media)) general.push(mediaFinding(media));
            });
            var ordered = Object.keys(slots).map(Number).sort(function (a, b) { return a - b; }).map(function (key) { return slots[key]; });
            return { slots: ordered, count: pages.length, general: general };
          }

          function storyPage(slot, count, images, fetched) {
            var wrapper = element("div", "page " + (slot.page ? "shown" : "dropped"));
            wrapper.dataset.page = String(slot.index + 1);
            var screen = element("div", "screen");
            var media = slot.media;
            if (slot.page) {
              var source = imageFor(images, slot.page.image);
              if (source) {
                var image = element("img");
                image.alt = "story page " + (slot.index + 1);
                image.src = source;
                screen.appendChild(image);
              } else {
                screen.appendChild(element("div", "placeholder", (fetched ? "Image not inlined (answer size limit) or not in the cache: " : "Not fetched (--no-fetch): ") + (slot.page.image_source || slot.page.image || "")));
              }
              var progress = element("div", "progress");
              for (var step = 0; step < count; step++) progress.appendChild(element("i", step === slot.position ? "current" : ""));
              screen.appendChild(progress);
              if (slot.page.duration !== undefined) screen.appendChild(element("div", "duration", slot.page.duration + " s"));
              var caption = element("div", "caption");
              if (slot.page.title) caption.appendChild(element("div", "title", slot.page.title));
              if (slot.page.subtitle) caption.appendChild(element("div", "subtitle", slot.page.subtitle));
              if (slot.page.button_title) caption.appendChild(element("span", "button", slot.page.button_title));
              screen.appendChild(caption);
            } else {
              screen.appendChild(element("div", "placeholder", "Dropped: the phone does not show this page" + (media ? " (" + media.source + ")" : "")));
            }
            wrapper.appendChild(screen);
            var label = "Page " + (slot.index + 1);
            if (slot.page && media && media.width) label += " · " + media.width + "×" + media.height + " " + media.format + " " + kilobytes(media.bytes);
            if (!slot.page) label += " · dropped";
            wrapper.appendChild(element("div", "label", label));
            if (slot.findings.length) wrapper.appendChild(findingList(slot.findings));
            return wrapper;
          }

          function byteMeter(result) {
            var box = element("div", "bytes");
            if (!result.apns) { box.textContent = "No payload: the job was rejected."; return box; }
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
            ["media", "variant", "status", "size", "ms", "source"].forEach(function (name) { head.appendChild(element("th", "", name)); });
            table.appendChild(head);
            (result.media || []).forEach(function (media) {
              var row = element("tr");
              var size = media.width ? media.width + "×" + media.height + " " + media.format + " " + kilobytes(media.bytes) : (media.error ? media.error.code : "");
              [media.pointer, media.variant, media.status, size, media.ms, media.source].forEach(function (value) { row.appendChild(element("td", "", value)); });
              table.appendChild(row);
            });
            return table;
          }

          function job(file, result, document_) {
            var section = element("section", "job");
            var heading = element("h2", "", file + (result.id ? " · " + result.id : "") + (result.line ? " (line " + result.line + ")" : ""));
            heading.appendChild(element("span", "badge " + result.status, result.status));
            section.appendChild(heading);
            var story = storySlots(result);
            var row = element("div", "row");
            row.appendChild(lockScreen(result, document_.images));
            var summary = element("div", "summary");
            summary.appendChild(byteMeter(result));
            if (story.general.length) summary.appendChild(findingList(story.general));
            else summary.appendChild(element("p", "clean", story.slots.length ? "No findings besides those under the story pages." : "No findings."));
            if (result.media && result.media.length) summary.appendChild(mediaTable(result));
            row.appendChild(summary);
            section.appendChild(row);
            if (story.slots.length) {
              var stories = element("div", "stories");
              stories.appendChild(element("h3", "", "Story pages (" + story.count + " shown)"));
              var pages = element("div", "pages");
              story.slots.forEach(function (slot) { pages.appendChild(storyPage(slot, story.count, document_.images, document_.fetched)); });
              stories.appendChild(pages);
              section.appendChild(stories);
            }
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
            var overall = element("p", "overall");
            overall.appendChild(element("span", "badge " + (document_.valid ? "valid" : "invalid"), document_.valid ? "valid" : "findings"));
            overall.appendChild(document.createTextNode(document_.fetched ? " Media fetched and rendered." : " Structure only: media not fetched."));
            main.appendChild(overall);
            (document_.reports || []).forEach(function (report) {
              (report.results || []).forEach(function (result) {
                main.appendChild(job(report.file, result, document_));
              });
            });
            main.dataset.rendered = "true";
          }

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
