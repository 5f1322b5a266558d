//! A test server's route table: the replies scripted for each path, the
//! answers a function makes for the paths under a prefix, and the reply for
//! every other path under a prefix.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use crate::reply::Reply;

/// A function that answers the paths under its prefix, or declines one
/// (`None`: the static prefixes answer it).
pub(crate) type Responder = Arc<dyn Fn(&str) -> Option<Reply> + Send + Sync>;

/// What a server answers, by path.
#[derive(Default)]
pub(crate) struct Routes {
    /// The replies of each path, in turn; the last one repeats.
    paths: HashMap<String, VecDeque<Reply>>,
    /// The reply for a path with no replies of its own that starts with the
    /// prefix; the longest matching prefix wins.
    prefixes: Vec<(String, Reply)>,
    /// Functions that answer paths under their prefix, asked after the
    /// paths and before the static prefixes; the longest matching prefix
    /// is asked first.
    responders: Vec<(String, Responder)>,
}

impl Routes {
    /// Answers the requests for `path` with `replies` in turn.
    pub(crate) fn insert(&mut self, path: &str, replies: VecDeque<Reply>) {
        self.paths.insert(path.to_owned(), replies);
    }

    /// Answers `reply` for every path under `prefix` that has no replies of
    /// its own (replacing the reply this prefix had).
    pub(crate) fn insert_prefix(&mut self, prefix: &str, reply: Reply) {
        self.prefixes.retain(|(p, _)| p != prefix);
        self.prefixes.push((prefix.to_owned(), reply));
    }

    /// Lets `responder` answer the paths under `prefix` that have no
    /// replies of their own (replacing the responder this prefix had).
    pub(crate) fn insert_responder(&mut self, prefix: &str, responder: Responder) {
        self.responders.retain(|(p, _)| p != prefix);
        self.responders.push((prefix.to_owned(), responder));
        self.responders
            .sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    }

    /// The reply for the next request for `path`, if any route covers it.
    pub(crate) fn next(&mut self, path: &str) -> Option<Reply> {
        if let Some(replies) = self.paths.get_mut(path) {
            return if replies.len() > 1 {
                replies.pop_front()
            } else {
                replies.front().cloned()
            };
        }
        let answered = self
            .responders
            .iter()
            .filter(|(prefix, _)| path.starts_with(prefix.as_str()))
            .find_map(|(_, responder)| responder(path));
        if answered.is_some() {
            return answered;
        }
        self.prefixes
            .iter()
            .filter(|(prefix, _)| path.starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, reply)| reply.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(routes: &mut Routes, path: &str) -> Option<u16> {
        routes.next(path).map(|r| r.status)
    }

    #[test]
    fn a_path_of_its_own_then_the_longest_prefix() {
        let mut routes = Routes::default();
        routes.insert_prefix("/", Reply::new(404));
        routes.insert_prefix("/v1/", Reply::new(410));
        routes.insert("/v1/known", VecDeque::from([Reply::new(200)]));
        assert_eq!(status(&mut routes, "/v1/known"), Some(200));
        assert_eq!(status(&mut routes, "/v1/other"), Some(410));
        assert_eq!(status(&mut routes, "/elsewhere"), Some(404));
        // Replacing a prefix's reply keeps one entry for it.
        routes.insert_prefix("/v1/", Reply::new(451));
        assert_eq!(status(&mut routes, "/v1/other"), Some(451));
        assert_eq!(routes.prefixes.len(), 2);
    }

    #[test]
    fn no_route_without_a_prefix_that_matches() {
        let mut routes = Routes::default();
        routes.insert_prefix("/v1/", Reply::new(404));
        assert_eq!(status(&mut routes, "/v2/x"), None);
        assert_eq!(status(&mut routes, "/v1"), None);
    }

    #[test]
    fn responders_answer_after_paths_and_before_prefixes() {
        let mut routes = Routes::default();
        routes.insert_prefix("/", Reply::new(404));
        routes.insert("/v1/own", VecDeque::from([Reply::new(200)]));
        routes.insert_responder(
            "/v1/",
            Arc::new(|path: &str| path.ends_with("/x").then(|| Reply::new(201))),
        );
        assert_eq!(status(&mut routes, "/v1/own"), Some(200));
        assert_eq!(status(&mut routes, "/v1/a/x"), Some(201));
        // Declined: the static prefix answers.
        assert_eq!(status(&mut routes, "/v1/a/y"), Some(404));
        assert_eq!(status(&mut routes, "/other/x"), Some(404));
    }

    #[test]
    fn replies_in_turn_and_the_last_repeats() {
        let mut routes = Routes::default();
        routes.insert("/p", VecDeque::from([Reply::new(503), Reply::new(200)]));
        assert_eq!(status(&mut routes, "/p"), Some(503));
        assert_eq!(status(&mut routes, "/p"), Some(200));
        assert_eq!(status(&mut routes, "/p"), Some(200));
    }
}
