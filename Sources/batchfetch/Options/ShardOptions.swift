import ArgumentParser
import BatchFetch
import Foundation

/// `--shard K/N` or `--shard auto`.
enum ShardSpec: ExpressibleByArgument, Sendable {
    case fixed(Shard)
    /// K/N from the scheduler's variables (``SchedulerShard``).
    case auto

    init?(argument: String) {
        if argument == "auto" {
            self = .auto
        } else if let shard = Shard(argument: argument) {
            self = .fixed(shard)
        } else {
            return nil
        }
    }
}

/// `fetch`'s shard flags, and the rate share that a shard takes of the whole job's.
struct ShardOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            """
            Fetch only shard K of N (0 ≤ K < N), by a stable hash of each line (of a JSON request's id when it \
            has one); records keep their global index. auto: K/N from a Slurm job array (SLURM_ARRAY_TASK_ID, \
            _MIN, _STEP, _COUNT: --array=1-7:2 gives 0/4 … 3/4) or a Kubernetes Indexed Job \
            (JOB_COMPLETION_INDEX, N from --shard-count). With a shard, --rate, --burst and --host-rate are the \
            whole job's totals: each shard takes 1/N of them.
            """, valueName: "K/N|auto"))
    var shard: ShardSpec?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "N for --shard auto where the scheduler does not give it (a Kubernetes Indexed Job's completions; "
                + "default $BATCHFETCH_SHARD_COUNT).", valueName: "N"))
    var shardCount: Int?

    func validate() throws {
        if let count = self.shardCount, count < 1 {
            throw ValidationError("--shard-count \(count) is out of range: give 1 or more shards")
        }
        switch self.shard {
        case .fixed(let shard):
            if let count = self.shardCount, count != shard.count {
                throw ValidationError("--shard-count \(count) disagrees with --shard \(shard.index)/\(shard.count)")
            }
        case .auto:
            _ = try self.resolved(environment: ProcessInfo.processInfo.environment)
        case nil:
            if self.shardCount != nil {
                throw ValidationError("--shard-count goes with --shard auto")
            }
        }
    }

    /// The shard this run fetches, and, for `auto`, where it came from (for standard error).
    func resolved(environment: [String: String]) throws(ValidationError) -> (shard: Shard, source: String?)? {
        switch self.shard {
        case nil:
            return nil
        case .fixed(let shard):
            return (shard, nil)
        case .auto:
            switch SchedulerShard.resolve(environment: environment, count: self.shardCount) {
            case .success(let found):
                return (found.shard, found.source)
            case .failure(let problem):
                throw ValidationError("--shard auto: \(problem.message)")
            }
        }
    }

    /// The shard, said on standard error when it came from the scheduler. Validation resolved it already.
    func resolvedReporting() -> Shard? {
        guard let found = try? self.resolved(environment: ProcessInfo.processInfo.environment) else {
            return nil
        }
        if let source = found.source {
            FileHandleOutput.standardError.write(
                "batchfetch: --shard auto: shard \(found.shard.index)/\(found.shard.count) from \(source)\n")
        }
        return found.shard
    }
}

/// K/N read from a scheduler's environment: a Slurm job array or a Kubernetes Indexed Job.
enum SchedulerShard {
    struct Problem: Error {
        let message: String
    }

    /// - Parameter count: N where the scheduler does not say it (`--shard-count`).
    static func resolve(environment: [String: String], count: Int?) -> Result<(shard: Shard, source: String), Problem> {
        if let id = environment["SLURM_ARRAY_TASK_ID"] {
            return Self.slurm(id: id, environment: environment, count: count)
        }
        if let index = environment["JOB_COMPLETION_INDEX"] {
            return Self.kubernetes(index: index, environment: environment, count: count)
        }
        return .failure(
            Problem(
                message: "neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX "
                    + "(a Kubernetes Indexed Job) is set; give --shard K/N"))
    }

    /// Task ids run from MIN by STEP, COUNT of them: K is the id's place among them, so arrays that
    /// start above 0 or step (`--array=1-7:2`) give 0/4 … 3/4, not the ids themselves.
    private static func slurm(id text: String, environment: [String: String], count: Int?) -> Result<
        (shard: Shard, source: String), Problem
    > {
        func number(_ name: String) -> Result<Int?, Problem> {
            guard let value = environment[name] else {
                return .success(nil)
            }
            guard let number = Int(value.trimmingCharacters(in: .whitespaces)) else {
                return .failure(Problem(message: "\(name) '\(value)' is not a whole number"))
            }
            return .success(number)
        }
        let id: Int
        let minimum: Int?
        let step: Int?
        let total: Int?
        let maximum: Int?
        switch (number("SLURM_ARRAY_TASK_ID"), number("SLURM_ARRAY_TASK_MIN"), number("SLURM_ARRAY_TASK_STEP")) {
        case (.success(let i), .success(let m), .success(let s)):
            (id, minimum, step) = (i ?? 0, m, s)
        case (.failure(let p), _, _), (_, .failure(let p), _), (_, _, .failure(let p)):
            return .failure(p)
        }
        switch (number("SLURM_ARRAY_TASK_COUNT"), number("SLURM_ARRAY_TASK_MAX")) {
        case (.success(let c), .success(let m)):
            (total, maximum) = (c, m)
        case (.failure(let p), _), (_, .failure(let p)):
            return .failure(p)
        }
        guard let minimum, let total, total >= 1 else {
            return .failure(
                Problem(
                    message: "SLURM_ARRAY_TASK_ID \(text) without SLURM_ARRAY_TASK_MIN and _COUNT; give --shard K/N"))
        }
        // Taken as 1 where it is not set, and checked against MAX where that is.
        let stride = step ?? 1
        let offset = id - minimum
        let span = "\(minimum)-\(maximum ?? minimum + (total - 1) * stride)\(stride == 1 ? "" : ":\(stride)")"
        guard stride >= 1, offset >= 0, offset % stride == 0, offset / stride < total,
            maximum.map({ $0 == minimum + (total - 1) * stride }) ?? true
        else {
            // A list such as --array=1,4,9 has no K/N that the ids give.
            return .failure(
                Problem(
                    message: "the Slurm array (task \(id), min \(minimum), step \(stride), count \(total)"
                        + "\(maximum.map { ", max \($0)" } ?? "")) is not evenly spaced; give --shard K/N"))
        }
        if let count, count != total {
            return .failure(Problem(message: "--shard-count \(count) disagrees with SLURM_ARRAY_TASK_COUNT \(total)"))
        }
        guard let shard = Shard(argument: "\(offset / stride)/\(total)") else {
            return .failure(Problem(message: "the Slurm array gives no shard"))
        }
        return .success((shard, "the Slurm array (task \(id) of --array=\(span))"))
    }

    private static func kubernetes(index text: String, environment: [String: String], count: Int?) -> Result<
        (shard: Shard, source: String), Problem
    > {
        guard let index = Int(text.trimmingCharacters(in: .whitespaces)), index >= 0 else {
            return .failure(Problem(message: "JOB_COMPLETION_INDEX '\(text)' is not a whole number"))
        }
        let fromEnvironment = environment["BATCHFETCH_SHARD_COUNT"]
        guard let total = count ?? fromEnvironment.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
            total >= 1
        else {
            let given = fromEnvironment.map { " (BATCHFETCH_SHARD_COUNT '\($0)' is not a positive number)" } ?? ""
            return .failure(
                Problem(
                    message: "JOB_COMPLETION_INDEX \(index) is set but not N\(given): give --shard-count N "
                        + "(the Job's completions) or set BATCHFETCH_SHARD_COUNT"))
        }
        guard let shard = Shard(argument: "\(index)/\(total)") else {
            return .failure(
                Problem(message: "JOB_COMPLETION_INDEX \(index) is not below the \(total) completions (--shard-count)"))
        }
        let from = count != nil ? "--shard-count" : "BATCHFETCH_SHARD_COUNT"
        return .success((shard, "the Kubernetes Indexed Job (JOB_COMPLETION_INDEX \(index), N from \(from))"))
    }
}
