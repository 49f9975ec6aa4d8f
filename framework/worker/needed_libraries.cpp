#include "framework/worker/needed_libraries.h"

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <fstream>

namespace rkt {
namespace {

// Reads `count` objects of T at byte `offset`; false when the file is shorter.
template <typename T>
bool read_at(std::ifstream& file, std::uint64_t offset, T* into, std::size_t count = 1) {
  file.seekg(static_cast<std::streamoff>(offset));
  file.read(reinterpret_cast<char*>(into), static_cast<std::streamsize>(sizeof(T) * count));
  return static_cast<std::size_t>(file.gcount()) == sizeof(T) * count;
}

}  // namespace

std::vector<std::string> needed_libraries(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!file || !read_at(file, 0, &header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shentsize != sizeof(Elf64_Shdr) ||
      header.e_shnum == 0) {
    return {};
  }
  file.seekg(0, std::ios::end);
  const auto file_bytes = static_cast<std::uint64_t>(file.tellg());
  // A size past the file's end is no section of it (and no allocation is made for one).
  const auto within_file = [&](std::uint64_t offset, std::uint64_t bytes) {
    return offset <= file_bytes && bytes <= file_bytes - offset;
  };
  if (!within_file(header.e_shoff, std::uint64_t{header.e_shnum} * sizeof(Elf64_Shdr))) return {};
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  if (!read_at(file, header.e_shoff, sections.data(), sections.size())) return {};
  std::vector<std::string> needed;
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_type != SHT_DYNAMIC || section.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strings = sections[section.sh_link];
    if (!within_file(section.sh_offset, section.sh_size) ||
        !within_file(strings.sh_offset, strings.sh_size)) {
      return {};
    }
    std::vector<Elf64_Dyn> entries(section.sh_size / sizeof(Elf64_Dyn));
    std::string names(strings.sh_size, '\0');
    if (!read_at(file, section.sh_offset, entries.data(), entries.size()) ||
        !read_at(file, strings.sh_offset, names.data(), names.size())) {
      return {};
    }
    for (const Elf64_Dyn& entry : entries) {
      if (entry.d_tag == DT_NULL) break;
      if (entry.d_tag == DT_NEEDED && entry.d_un.d_val < names.size()) {
        needed.emplace_back(names.c_str() + entry.d_un.d_val);
      }
    }
  }
  return needed;
}

bool links_libtorch(const std::string& path) {
  for (const std::string& name : needed_libraries(path)) {
    if (name.rfind("libtorch", 0) == 0 || name.rfind("libc10", 0) == 0) return true;
  }
  return false;
}

}  // namespace rkt
