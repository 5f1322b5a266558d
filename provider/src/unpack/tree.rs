//! The paths a package being unpacked has so far, so that each file's
//! folders are announced once, before it, and no path is both a file and a
//! folder or comes twice (docs/behaviour.md, UNPACK-2, UNPACK-7).
//!
//! A trie of path elements: node 0 is the package's folder, each other node
//! is reached from its parent by one element. A name's folders are found
//! in time linear in its length (times a logarithm), each element is held
//! once, and a deep name (`a/a/a/…`) costs as much as its bytes: keeping
//! every prefix as a string would cost their square.

use std::collections::BTreeMap;

use super::UnpackError;

/// What a path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A file entry's path.
    File,
    /// A folder only other entries' names imply.
    Folder,
    /// A folder entry's path (and maybe others' folder too).
    FolderEntry,
}

/// What an entry adds at its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Leaf {
    File,
    Folder,
}

#[derive(Debug)]
pub(super) struct Tree {
    /// The node of each (parent node, element): the key is the parent's
    /// number (8 bytes, little-endian), then the element's bytes.
    children: BTreeMap<Box<[u8]>, usize>,
    /// What each node is.
    kinds: Vec<Kind>,
    /// A key being built.
    key: Vec<u8>,
}

impl Tree {
    pub(super) fn new() -> Tree {
        Tree {
            children: BTreeMap::new(),
            kinds: vec![Kind::Folder],
            key: Vec::new(),
        }
    }

    fn key(&mut self, parent: usize, element: &str) {
        self.key.clear();
        self.key.extend_from_slice(&(parent as u64).to_le_bytes());
        self.key.extend_from_slice(element.as_bytes());
    }

    /// The node of the folder `path` is in (a plain relative path): every
    /// folder of it the package does not have yet is added and given to
    /// `created`, shallowest first. `entry` names the entry for errors: a
    /// folder of `path` that is a file is a [`UnpackError::NameConflict`].
    pub(super) fn folder_of(
        &mut self,
        entry: &str,
        path: &str,
        mut created: impl FnMut(&str) -> Result<(), UnpackError>,
    ) -> Result<usize, UnpackError> {
        let mut node = 0;
        let mut start = 0;
        while let Some(at) = path[start..].find('/') {
            let end = start + at;
            self.key(node, &path[start..end]);
            node = match self.children.get(&self.key[..]) {
                Some(&child) if self.kinds[child] == Kind::File => {
                    return Err(UnpackError::NameConflict {
                        entry: entry.to_owned(),
                        path: path[..end].to_owned(),
                    });
                }
                Some(&child) => child,
                None => {
                    let child = self.kinds.len();
                    self.kinds.push(Kind::Folder);
                    self.children
                        .insert(self.key.clone().into_boxed_slice(), child);
                    created(&path[..end])?;
                    child
                }
            };
            start = end + 1;
        }
        Ok(node)
    }

    /// Adds `path` (in folder node `parent`, from
    /// [`folder_of`](Tree::folder_of)) as `leaf`; true when the package
    /// did not have it. A file where the package has anything, or a folder
    /// entry where it has a file or another folder entry, is an error.
    pub(super) fn add(
        &mut self,
        entry: &str,
        path: &str,
        parent: usize,
        leaf: Leaf,
    ) -> Result<bool, UnpackError> {
        let element = path.rsplit('/').next().unwrap_or(path);
        self.key(parent, element);
        let found = self.children.get(&self.key[..]).copied();
        let conflict = || UnpackError::NameConflict {
            entry: entry.to_owned(),
            path: path.to_owned(),
        };
        let duplicate = || UnpackError::DuplicateName {
            entry: entry.to_owned(),
        };
        match (found.map(|node| (node, self.kinds[node])), leaf) {
            (None, _) => {
                let node = self.kinds.len();
                self.kinds.push(match leaf {
                    Leaf::File => Kind::File,
                    Leaf::Folder => Kind::FolderEntry,
                });
                self.children
                    .insert(self.key.clone().into_boxed_slice(), node);
                Ok(true)
            }
            (Some((_, Kind::File)), Leaf::File) => Err(duplicate()),
            (Some((_, Kind::File)), Leaf::Folder) | (Some(_), Leaf::File) => Err(conflict()),
            (Some((_, Kind::FolderEntry)), Leaf::Folder) => Err(duplicate()),
            (Some((node, Kind::Folder)), Leaf::Folder) => {
                self.kinds[node] = Kind::FolderEntry;
                Ok(false)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn created(tree: &mut Tree, path: &str) -> Result<Vec<String>, UnpackError> {
        let mut made = Vec::new();
        tree.folder_of(path, path, |folder| {
            made.push(folder.to_owned());
            Ok(())
        })?;
        Ok(made)
    }

    #[test]
    fn folders_once_shallowest_first() {
        let mut tree = Tree::new();
        assert_eq!(
            created(&mut tree, "a/b/c/f").expect("fine"),
            ["a", "a/b", "a/b/c"]
        );
        assert_eq!(created(&mut tree, "a/b/d/f").expect("fine"), ["a/b/d"]);
        assert!(created(&mut tree, "top").expect("fine").is_empty());
        // Elements are matched whole: `a/bc` is not under `a/b`.
        assert_eq!(created(&mut tree, "a/bc/f").expect("fine"), ["a/bc"]);
    }

    #[test]
    fn files_and_folders_clash() {
        let mut tree = Tree::new();
        let parent = tree.folder_of("c", "c", |_| Ok(())).expect("fine");
        assert!(tree.add("c", "c", parent, Leaf::File).expect("new"));
        let err = created(&mut tree, "c/d").expect_err("c is a file");
        assert!(
            matches!(&err, UnpackError::NameConflict { entry, path } if entry == "c/d" && path == "c"),
            "{err}"
        );
        let err = tree.add("c", "c", 0, Leaf::File).expect_err("twice");
        assert!(matches!(err, UnpackError::DuplicateName { .. }), "{err}");
        let err = tree.add("c/", "c", 0, Leaf::Folder).expect_err("a file");
        assert!(matches!(err, UnpackError::NameConflict { .. }), "{err}");
        created(&mut tree, "e/f").expect("fine");
        assert!(!tree.add("e/", "e", 0, Leaf::Folder).expect("implied"));
        let err = tree.add("e/", "e", 0, Leaf::Folder).expect_err("twice");
        assert!(matches!(err, UnpackError::DuplicateName { .. }), "{err}");
        let err = tree.add("e", "e", 0, Leaf::File).expect_err("a folder");
        assert!(matches!(err, UnpackError::NameConflict { .. }), "{err}");
    }
}
