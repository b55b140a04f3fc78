// The tilesched subcommands; each parses its own arguments and returns an exit code.
#ifndef TILESCHED_CLI_COMMANDS_H_
#define TILESCHED_CLI_COMMANDS_H_

namespace tilesched::cli {

// argv[first] is the first argument after the subcommand name.
int RunEvaluate(int argc, char** argv, int first);
int RunInfo(int argc, char** argv, int first);
int RunBound(int argc, char** argv, int first);
int RunSchedule(int argc, char** argv, int first);
int RunResults(int argc, char** argv, int first);
int RunSweep(int argc, char** argv, int first);
int RunMerge(int argc, char** argv, int first);
int RunPlot(int argc, char** argv, int first);
int RunCompare(int argc, char** argv, int first);
int RunReport(int argc, char** argv, int first);
int RunDot(int argc, char** argv, int first);
int RunImport(int argc, char** argv, int first);
int RunGenerate(int argc, char** argv, int first);
int RunCut(int argc, char** argv, int first);

}  // namespace tilesched::cli

#endif  // TILESCHED_CLI_COMMANDS_H_
