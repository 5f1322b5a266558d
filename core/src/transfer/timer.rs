//! The transfer's named timers, in the manner of quinn-proto's timer table: each
//! timer is an optional instant, the driver is told only the earliest one,
//! and firing happens when the driver reports a time at or after it, so a
//! driver whose timer wakes it a little early loses nothing.

use std::time::Instant;

/// What a timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Timer {
    /// The end of the time allowed for the current attempt, when attempts
    /// have a timeout of their own (`RetryPolicy::attempt_timeout`).
    Attempt,
    /// The end of the time allowed for the whole transfer (`Config::timeout_for`).
    Deadline,
    /// The end of the wait before the next attempt.
    Retry,
}

impl Timer {
    /// In the order they fire when due at the same instant: the last
    /// attempt's timer before the deadline it was sized to meet.
    const ALL: [Timer; 3] = [Timer::Attempt, Timer::Deadline, Timer::Retry];

    fn index(self) -> usize {
        self as usize
    }
}

/// When each timer fires, if it is armed, and the earliest of them (kept
/// up to date, as every input checks it).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Timers {
    at: [Option<Instant>; Timer::ALL.len()],
    next: Option<(Timer, Instant)>,
}

impl Timers {
    /// Arms `timer` for `at` (`None` disarms it).
    pub(crate) fn set(&mut self, timer: Timer, at: Option<Instant>) {
        self.at[timer.index()] = at;
        self.next = Timer::ALL
            .iter()
            .filter_map(|&t| self.at[t.index()].map(|at| (t, at)))
            .min_by_key(|&(_, at)| at);
    }

    /// When `timer` fires, if it is armed.
    pub(crate) fn get(&self, timer: Timer) -> Option<Instant> {
        self.at[timer.index()]
    }

    /// The earliest armed timer and when it fires.
    pub(crate) fn next(&self) -> Option<(Timer, Instant)> {
        self.next
    }

    /// Disarms and returns the earliest timer due at `now`, if any.
    pub(crate) fn expire(&mut self, now: Instant) -> Option<Timer> {
        match self.next {
            Some((timer, at)) if at <= now => {
                self.set(timer, None);
                Some(timer)
            }
            _ => None,
        }
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

    #[test]
    fn the_earliest_fires_first() {
        let start = Instant::now();
        let mut timers = Timers::default();
        timers.set(Timer::Deadline, Some(start + Duration::from_secs(11)));
        timers.set(Timer::Retry, Some(start + Duration::from_millis(100)));
        assert_eq!(timers.next().map(|(t, _)| t), Some(Timer::Retry));
        let late = start + Duration::from_secs(12);
        assert_eq!(timers.expire(late), Some(Timer::Retry));
        assert_eq!(timers.expire(late), Some(Timer::Deadline));
        assert_eq!(timers.expire(late), None);
        assert_eq!(timers.get(Timer::Deadline), None);
    }
}
