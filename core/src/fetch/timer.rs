//! The fetch's named timers, in the manner of quinn-proto's timer table: each
//! timer is an optional instant, the driver is told only the earliest one,
//! and firing happens when the driver reports a time at or after it, so a
//! driver whose timer wakes it a little early loses nothing.

use std::time::Instant;

/// What a timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Timer {
    /// The end of the time allowed for the whole fetch (`Config::timeout`).
    Deadline,
}

impl Timer {
    const ALL: [Timer; 1] = [Timer::Deadline];

    fn index(self) -> usize {
        self as usize
    }
}

/// When each timer fires, if it is armed.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Timers([Option<Instant>; Timer::ALL.len()]);

impl Timers {
    /// Arms `timer` for `at` (`None` disarms it).
    pub(crate) fn set(&mut self, timer: Timer, at: Option<Instant>) {
        self.0[timer.index()] = at;
    }

    /// The earliest armed timer and when it fires.
    pub(crate) fn next(&self) -> Option<(Timer, Instant)> {
        Timer::ALL
            .iter()
            .filter_map(|&t| self.0[t.index()].map(|at| (t, at)))
            .min_by_key(|&(_, at)| at)
    }

    /// Disarms and returns the earliest timer due at `now`, if any.
    pub(crate) fn expire(&mut self, now: Instant) -> Option<Timer> {
        let (timer, at) = self.next()?;
        if at > now {
            return None;
        }
        self.0[timer.index()] = None;
        Some(timer)
    }

    /// Disarms every timer.
    pub(crate) fn clear(&mut self) {
        *self = Timers::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn fires_only_when_due_and_only_once() {
        let start = Instant::now();
        let mut timers = Timers::default();
        assert_eq!(timers.next(), None);
        let at = start + Duration::from_secs(1);
        timers.set(Timer::Deadline, Some(at));
        assert_eq!(timers.next(), Some((Timer::Deadline, at)));
        assert_eq!(timers.expire(start), None, "early: nothing fires");
        assert_eq!(timers.expire(at), Some(Timer::Deadline));
        assert_eq!(timers.expire(at), None, "fired timers are disarmed");
        timers.set(Timer::Deadline, Some(at));
        timers.clear();
        assert_eq!(timers.next(), None);
    }
}
