#include "html_page.h"

#include "text.h"

namespace labkit {

std::string HtmlDocument(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
         HtmlEscaped(title) +
         "</title>\n<style>\n"
         "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;"
         "color:#222}\n"
         "table{border-collapse:collapse;margin:0.5rem 0 1.5rem}\n"
         "th,td{border:1px solid #ccc;padding:0.3rem 0.6rem;text-align:left;vertical-align:top}\n"
         "td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
         "pre{background:#f6f6f6;padding:0.8rem;overflow-x:auto;line-height:1.25}\n"
         ".passed{color:#1a7f37;font-weight:bold}.failed{color:#c62828;font-weight:bold}\n"
         ".other{color:#9a6700;font-weight:bold}\n"
         ".bar{background:#4a7bd0;height:0.9rem}\n"
         "</style>\n</head>\n<body>\n" +
         body + "</body>\n</html>\n";
}

std::string HtmlPre(const std::string& text) { return "<pre>" + HtmlEscaped(text) + "</pre>\n"; }

}  // namespace labkit
