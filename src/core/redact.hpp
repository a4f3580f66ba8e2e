// --redact: removes what identifies a machine or a person from every output
// before it is printed or written, so a report can be attached to a public
// support thread.
//
// Removed:
//   host names        the report's host.hostname (and its first label), names given by the caller
//   user names        from home paths (/home/<u>, /Users/<u>, C:\Users\<u>) anywhere in the report,
//                     and names given by the caller; also as bare words
//   home paths        /home/<u>/..., /var/home/<u>/..., /Users/<u>/..., C:\Users\<u>\... keep their
//                     shape: /home/<user>/...
//   serials, UUIDs    GPU-/MIG- UUIDs and any 8-4-4-4-12 UUID; values of "Serial Number : ...",
//                     "GPU UUID : ...", "Unique ID : ..." lines; JSON values whose key names a
//                     serial, uuid, guid or pdi
//   addresses         IPv4 (not 4-part version numbers after "version", "driver", "cuDNN", ...),
//                     IPv6 (full, or compressed with >= 3 groups), MAC addresses
// Replacements are fixed tokens (<host>, <user>, <uuid>, <serial>, <ip>,
// <mac>), so redacted output stays readable and redaction is idempotent.
//
// Pure core code: the CLI adds the secrets only it can know (the process's
// user and host names) and applies redact_report / redact_text to every
// output when --redact is given.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/evidence.hpp"
#include "core/json.hpp"

namespace accel {

/// Names to remove wherever they appear (as whole words).
struct RedactSecrets {
  std::vector<std::string> hostnames;
  std::vector<std::string> users;

  /// Adds the report's host name and every user name its home paths show.
  void add_from_report(const Report& report);
  /// Adds user names found in home paths of `text`.
  void add_users_from_text(std::string_view text);
};

/// `text` with every secret and identifying pattern replaced.
std::string redact_text(std::string_view text, const RedactSecrets& secrets);

/// Every string in `j` (keys too) redacted, and values of identifying keys
/// (serial, uuid, guid, pdi, hostname) replaced whole.
json redact_json(const json& j, const RedactSecrets& secrets);

/// A copy of `report` with its own secrets (see add_from_report) and `extra`
/// removed from every field, findings and verdict included.
Report redact_report(const Report& report, const RedactSecrets& extra = {});

}  // namespace accel
