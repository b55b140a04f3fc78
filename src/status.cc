// Status helpers.
#include "tilesched/status.h"

namespace tilesched {

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  return Status::Error(context + message_);
}

}  // namespace tilesched
