//! The process exit status, as one enum shared by every subcommand.
//!
//! `0` means the job ran and found nothing wrong, `1` that it ran and found
//! problems, `2` that it could not be done. When both happen, 2 wins.

use std::process::ExitCode;

/// Outcome of a whole run, mapped to the process exit code by `main`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    /// Ran to completion, no problems found: exit 0.
    Ok,
    /// Ran to completion, problems found: exit 1.
    Problems,
    /// Could not do the job (unreadable input, write failure): exit 2.
    Error,
}

impl ExitStatus {
    /// The more severe of two statuses (`Error` > `Problems` > `Ok`).
    pub fn max(self, other: ExitStatus) -> ExitStatus {
        Ord::max(self, other)
    }

    /// The status of a run that found `problems` and could not read
    /// `failed_inputs` of its inputs: `Error` wins over `Problems`.
    pub fn of_run(problems: u64, failed_inputs: u64) -> ExitStatus {
        let found = if problems > 0 {
            ExitStatus::Problems
        } else {
            ExitStatus::Ok
        };
        let failed = if failed_inputs > 0 {
            ExitStatus::Error
        } else {
            ExitStatus::Ok
        };
        found.max(failed)
    }
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> ExitCode {
        match status {
            ExitStatus::Ok => ExitCode::from(0),
            ExitStatus::Problems => ExitCode::from(1),
            ExitStatus::Error => ExitCode::from(2),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_wins_over_problems() {
        assert_eq!(
            ExitStatus::Problems.max(ExitStatus::Error),
            ExitStatus::Error
        );
        assert_eq!(
            ExitStatus::Ok.max(ExitStatus::Problems),
            ExitStatus::Problems
        );
        assert_eq!(ExitStatus::Ok.max(ExitStatus::Ok), ExitStatus::Ok);
    }

    #[test]
    fn a_failed_input_wins_over_problems() {
        assert_eq!(ExitStatus::of_run(0, 0), ExitStatus::Ok);
        assert_eq!(ExitStatus::of_run(3, 0), ExitStatus::Problems);
        assert_eq!(ExitStatus::of_run(3, 1), ExitStatus::Error);
        assert_eq!(ExitStatus::of_run(0, 1), ExitStatus::Error);
    }
}
