//! A small document tree for the brief's fixed facts, so that under a tiny budget they can be
//! shortened only at list items ("… and N more …"), never mid-sentence.

/// A piece of the document.
pub(crate) enum Node {
    /// Literal text, written as is (it carries its own line ends).
    Text(String),
    /// A bulleted list whose items may be capped.
    List(List),
}

/// A bulleted list at an indentation.
pub(crate) struct List {
    /// Spaces before each bullet.
    pub indent: usize,
    /// The items, in order.
    pub items: Vec<Item>,
    /// What the items are, for the "… and N more …" line: (one, several).
    pub noun: (&'static str, &'static str),
}

/// One bullet: its line and anything nested under it.
pub(crate) struct Item {
    /// The bullet's text (one line).
    pub line: String,
    /// Nested nodes (their own indentation).
    pub children: Vec<Node>,
}

impl Item {
    /// A bullet with nothing under it.
    pub(crate) fn leaf(line: String) -> Self {
        Item {
            line,
            children: Vec::new(),
        }
    }
}

/// Writes `nodes` with every list cut to its first `cap` items (all of them when `None`);
/// returns whether any list was cut.
pub(crate) fn render(nodes: &[Node], cap: Option<usize>, out: &mut String) -> bool {
    let mut cut = false;
    for node in nodes {
        match node {
            Node::Text(text) => out.push_str(text),
            Node::List(list) => {
                let shown = cap.map_or(list.items.len(), |c| c.min(list.items.len()));
                let pad = " ".repeat(list.indent);
                for item in &list.items[..shown] {
                    out.push_str(&pad);
                    out.push_str("- ");
                    out.push_str(&item.line);
                    out.push('\n');
                    cut |= render(&item.children, cap, out);
                }
                let rest = list.items.len() - shown;
                if rest > 0 {
                    cut = true;
                    out.push_str(&pad);
                    let noun = if rest == 1 { list.noun.0 } else { list.noun.1 };
                    out.push_str(&format!("- … and {rest} more {noun}\n"));
                }
            }
        }
    }
    cut
}

/// The length of the longest list anywhere in `nodes`.
pub(crate) fn longest_list(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|node| match node {
            Node::Text(_) => 0,
            Node::List(list) => list
                .items
                .iter()
                .map(|item| longest_list(&item.children))
                .max()
                .unwrap_or(0)
                .max(list.items.len()),
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cap_keeps_the_first_items_and_says_how_many_more() {
        let nodes = vec![
            Node::Text("Head\n".into()),
            Node::List(List {
                indent: 0,
                noun: ("thing", "things"),
                items: vec![
                    Item {
                        line: "a".into(),
                        children: vec![Node::List(List {
                            indent: 2,
                            noun: ("part", "parts"),
                            items: vec![Item::leaf("a1".into()), Item::leaf("a2".into())],
                        })],
                    },
                    Item::leaf("b".into()),
                    Item::leaf("c".into()),
                ],
            }),
        ];
        assert_eq!(longest_list(&nodes), 3);
        let mut all = String::new();
        assert!(!render(&nodes, None, &mut all));
        assert_eq!(all, "Head\n- a\n  - a1\n  - a2\n- b\n- c\n");
        let mut one = String::new();
        assert!(render(&nodes, Some(1), &mut one));
        assert_eq!(
            one,
            "Head\n- a\n  - a1\n  - … and 1 more part\n- … and 2 more things\n"
        );
    }
}
