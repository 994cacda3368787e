// lidarsim program: the subcommands. Each takes the arguments after its name and returns the exit status
// (0 success, 1 bad input or failure, 2 bad usage; below 128 except LS_EXIT_INTERRUPTED, cli/signals.h: run stopped by
// Ctrl+C).
#pragma once

int lsCmdCheck(int argc, char** argv);     ///< lidarsim check WORLD.json...
int lsCmdScan(int argc, char** argv);      ///< lidarsim scan WORLD.json [options]
int lsCmdRun(int argc, char** argv);       ///< lidarsim run WORLD.json --steps N [options]
int lsCmdBench(int argc, char** argv);     ///< lidarsim bench [--worlds DIR] [--world NAME] [--threads N] [--csv]
int lsCmdRender(int argc, char** argv);    ///< lidarsim render WORLD.json -o frame.png [options]
int lsCmdImport(int argc, char** argv);    ///< lidarsim import MAP.yaml -o WORLD.json [options]
int lsCmdExportMap(int argc, char** argv); ///< lidarsim export-map WORLD.json -o MAP.yaml [--resolution M]
int lsCmdReplay(int argc, char** argv);    ///< lidarsim replay REC.jsonl [WORLD.json] [options]
int lsCmdWindow(int argc, char** argv);    ///< lidarsim [WORLD.json] [options]: the window
int lsCmdFmt(int argc, char** argv);       ///< lidarsim fmt [--check | --stdout] WORLD.json...
