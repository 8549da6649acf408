// Doubles as JSON text: the shortest digits that read back to the same double (Grisu2), laid
// out as nlohmann/json lays them out ("0.1", "16.0", "1e-05", "1.5e+20"); JSON.parse reads
// each back to the same number.
#pragma once

#include <string>

namespace pe {

// Appends `v`; NaN and infinity, which JSON cannot hold, append "null".
void append_number(std::string& out, double v);

}  // namespace pe
