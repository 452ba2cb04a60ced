// Replays LLVMFuzzerTestOneInput over every regular file of the directories given as arguments,
// for builds without libFuzzer (ctest fuzz_mm_io_corpus). Prints how many files ran; exits 1
// when no directory is given or one is missing or holds no file. A bug in the target aborts.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv)
{
    namespace fs = std::filesystem;
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s CORPUS_DIR...\n", argv[0]);
        return 1;
    }
    for (int a = 1; a < argc; ++a) {
        const fs::path dir = argv[a];
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) {
            std::fprintf(stderr, "%s: not a directory\n", argv[a]);
            return 1;
        }
        std::vector<fs::path> files;
        for (const auto& entry : fs::directory_iterator(dir))
            if (entry.is_regular_file()) files.push_back(entry.path());
        if (files.empty()) {
            std::fprintf(stderr, "%s: no files to replay\n", argv[a]);
            return 1;
        }
        for (const auto& file : files) {
            std::ifstream in(file, std::ios::binary);
            if (!in) {
                std::fprintf(stderr, "%s: cannot read\n", file.c_str());
                return 1;
            }
            const std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
            LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
        }
        std::printf("replayed %zu files from %s\n", files.size(), argv[a]);
    }
    return 0;
}
